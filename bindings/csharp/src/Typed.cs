// Typed.cs - tables viewed through a value serializer of the caller's choosing
// (MessagePack, JSON, protobuf...): the binding stores and returns bytes and
// calls the delegates to turn them into objects.
using System;
using System.Collections.Generic;
using System.Threading;
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

        /// <summary>Any key type (<see cref="DryDB.Key"/>), encoded for the table.</summary>
        public bool TryGet(Key key, out T value) { byte[] b; if (Table.TryGet(key, out b)) { value = D(b); return true; } value = default(T); return false; }
        public bool TryGetValue(Key key, out T value) { return TryGet(key, out value); }

        /// <summary>The deserialized value; KeyNotFoundException (naming the key) if absent.</summary>
        public T this[Key key] { get { return D(Table[key]); } }

        /// <summary>Values of many keys; default(T) and found[i] = false where absent.</summary>
        public T[] GetMany(IList<byte[]> keys, out bool[] found) { return Map(Table.GetMany(keys), out found); }
        public T[] GetMany(IList<long> keys, out bool[] found) { return Map(Table.GetMany(keys), out found); }
        public T[] GetMany(IList<Key> keys, out bool[] found) { return Map(Table.GetMany(keys), out found); }

        T[] Map(byte[][] raw, out bool[] found)
        {
            var r = new T[raw.Length];
            found = new bool[raw.Length];
            for (int i = 0; i < raw.Length; i++) if (raw[i] != null) { r[i] = D(raw[i]); found[i] = true; }
            return r;
        }

        public IEnumerable<KeyValuePair<byte[], T>> Range(Bound lo, Bound hi, bool reverse = false) { return Map(Table.Range(lo, hi, reverse)); }
        /// <summary>[lo, hi), as <c>Table.Range(Key, Key, bool)</c>.</summary>
        public IEnumerable<KeyValuePair<byte[], T>> Range(Key lo, Key hi, bool reverse = false) { return Map(Table.Range(lo, hi, reverse)); }
        public IEnumerable<KeyValuePair<byte[], T>> Prefix(Key prefix, bool reverse = false) { return Map(Table.Prefix(prefix, reverse)); }
        public IEnumerable<KeyValuePair<byte[], T>> All(bool reverse = false) { return Map(Table.All(reverse)); }

        IEnumerable<KeyValuePair<byte[], T>> Map(IEnumerable<KeyValuePair<byte[], byte[]>> src)
        {
            foreach (var kv in src) yield return new KeyValuePair<byte[], T>(kv.Key, D(kv.Value));
        }

        public long Count() { return Table.Count(); }
        public long Count(Bound lo, Bound hi) { return Table.Count(lo, hi); }
        public long Count(Key lo, Key hi) { return Table.Count(lo, hi); }

        /// <summary>The value, or default(T) if absent.</summary>
        public Task<T> GetAsync(Key key, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => { T v; TryGet(key, out v); return v; }, cancellationToken); }
        public Task<List<KeyValuePair<byte[], T>>> RangeAsync(Bound lo, Bound hi, bool reverse = false, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Async.List(() => Range(lo, hi, reverse), cancellationToken);
        }
        public Task<long> CountAsync(Bound lo, Bound hi, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Count(lo, hi), cancellationToken); }
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

        /// <summary>Any key type (<see cref="DryDB.Key"/>), encoded for the table.</summary>
        public void Append(Key key, T value) { Table.Append(key, S(value)); }
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
