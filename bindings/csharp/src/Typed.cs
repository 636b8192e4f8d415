// Typed.cs - tables viewed through a value serializer of the caller's choosing
// (MessagePack, JSON, protobuf...): the binding stores and returns bytes and
// calls the delegates to turn them into objects.
using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace DryDB
{
    /// <summary>A read view of a table whose values are deserialized with a
    /// delegate. Create with <see cref="Table.WithSerializer{T}"/>.</summary>
    public sealed class TypedTable<T>
    {
        readonly Func<byte[], T> deserialize;
        public Table Table { get; private set; }

        internal TypedTable(Table table, Func<byte[], T> deserialize)
        {
            if (deserialize == null) throw new ArgumentNullException("deserialize");
            Table = table; this.deserialize = deserialize;
        }

        T D(byte[] b) { return deserialize(b); }

        public bool TryGet(byte[] key, out T value) { byte[] b; if (Table.TryGet(key, out b)) { value = D(b); return true; } value = default(T); return false; }
        public bool TryGet(long key, out T value) { byte[] b; if (Table.TryGet(key, out b)) { value = D(b); return true; } value = default(T); return false; }
        public bool TryGet(ulong key, out T value) { byte[] b; if (Table.TryGet(key, out b)) { value = D(b); return true; } value = default(T); return false; }
        public bool TryGet(string key, out T value) { byte[] b; if (Table.TryGet(key, out b)) { value = D(b); return true; } value = default(T); return false; }
        public bool TryGet(Guid key, out T value) { byte[] b; if (Table.TryGet(key, out b)) { value = D(b); return true; } value = default(T); return false; }

        /// <summary>The deserialized value; KeyNotFoundException if absent.</summary>
        public T this[byte[] key] { get { T v; if (!TryGet(key, out v)) throw new KeyNotFoundException(); return v; } }
        public T this[long key] { get { T v; if (!TryGet(key, out v)) throw new KeyNotFoundException(); return v; } }
        public T this[string key] { get { T v; if (!TryGet(key, out v)) throw new KeyNotFoundException(); return v; } }

        /// <summary>Values of many keys; default(T) and found[i] = false where absent.</summary>
        public T[] GetMany(IList<byte[]> keys, out bool[] found) { return Map(Table.GetMany(keys), out found); }
        public T[] GetMany(IList<long> keys, out bool[] found) { return Map(Table.GetMany(keys), out found); }

        T[] Map(byte[][] raw, out bool[] found)
        {
            var r = new T[raw.Length];
            found = new bool[raw.Length];
            for (int i = 0; i < raw.Length; i++) if (raw[i] != null) { r[i] = D(raw[i]); found[i] = true; }
            return r;
        }

        public IEnumerable<KeyValuePair<byte[], T>> Range(Bound lo, Bound hi, bool reverse = false) { return Map(Table.Range(lo, hi, reverse)); }
        public IEnumerable<KeyValuePair<byte[], T>> Range(long lo, long hi, bool reverse = false) { return Map(Table.Range(lo, hi, reverse)); }
        public IEnumerable<KeyValuePair<byte[], T>> Range(string lo, string hi, bool reverse = false) { return Map(Table.Range(lo, hi, reverse)); }
        public IEnumerable<KeyValuePair<byte[], T>> Prefix(byte[] prefix, bool reverse = false) { return Map(Table.Prefix(prefix, reverse)); }
        public IEnumerable<KeyValuePair<byte[], T>> All(bool reverse = false) { return Map(Table.All(reverse)); }

        IEnumerable<KeyValuePair<byte[], T>> Map(IEnumerable<KeyValuePair<byte[], byte[]>> src)
        {
            foreach (var kv in src) yield return new KeyValuePair<byte[], T>(kv.Key, D(kv.Value));
        }

        public long Count() { return Table.Count(); }
        public long Count(Bound lo, Bound hi) { return Table.Count(lo, hi); }

        /// <summary>The value, or default(T) if absent.</summary>
        public Task<T> GetAsync(byte[] key) { return Async.Run(() => { T v; TryGet(key, out v); return v; }); }
        public Task<T> GetAsync(long key) { return Async.Run(() => { T v; TryGet(key, out v); return v; }); }
        public Task<List<KeyValuePair<byte[], T>>> RangeAsync(Bound lo, Bound hi, bool reverse = false)
        {
            return Async.Run(() => new List<KeyValuePair<byte[], T>>(Range(lo, hi, reverse)));
        }
        public Task<long> CountAsync(Bound lo, Bound hi) { return Async.Run(() => Count(lo, hi)); }
    }

    /// <summary>A table being built whose values are serialized with a delegate.
    /// Create with <see cref="TableBuilder.WithSerializer{T}"/>.</summary>
    public sealed class TypedTableBuilder<T>
    {
        readonly Func<T, byte[]> serialize;
        public TableBuilder Table { get; private set; }

        internal TypedTableBuilder(TableBuilder tb, Func<T, byte[]> serialize)
        {
            if (serialize == null) throw new ArgumentNullException("serialize");
            Table = tb; this.serialize = serialize;
        }

        byte[] S(T v)
        {
            var b = serialize(v);
            if (b == null) throw new ArgumentException("the serializer returned null");
            return b;
        }

        public void Append(byte[] key, T value) { Table.Append(key, S(value)); }
        public void Append(long key, T value) { Table.Append(key, S(value)); }
        public void Append(ulong key, T value) { Table.Append(key, S(value)); }
        public void Append(string key, T value) { Table.Append(key, S(value)); }
        public void Append(Guid key, T value) { Table.Append(key, S(value)); }
        public void AppendMany(IEnumerable<KeyValuePair<byte[], T>> rows)
        {
            if (rows == null) throw new ArgumentNullException("rows");
            Table.AppendMany(Ser(rows));
        }
        IEnumerable<KeyValuePair<byte[], byte[]>> Ser(IEnumerable<KeyValuePair<byte[], T>> rows)
        {
            foreach (var kv in rows) yield return new KeyValuePair<byte[], byte[]>(kv.Key, S(kv.Value));
        }
    }
}
