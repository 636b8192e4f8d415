// Table.Typed.cs - the point and batch reads by key type: byte[] (encoded),
// long, ulong, and any Key (string, double, Guid, tuples...), encoded for
// the table and answered by the copying cores in Table.cs.

using System;
using System.Collections.Generic;

namespace DryDB
{
    public sealed unsafe partial class Table
    {
        public bool TryGet(byte[] key, out byte[] value)
        {
            CheckKey(key, "key");
            fixed (byte* k = key) return TryGet(k, key.Length, out value);
        }
        public bool TryGet(long key, out byte[] value)
        {
            if (kind != KeyKind.Int64) return TryGet((Key)key, out value); // uint64, float64 tables: as Key encodes it
            ulong k = Keys.Int64BE(key);
            return GetCore((byte*)&k, 8, out value);
        }
        public bool TryGet(ulong key, out byte[] value)
        {
            if (kind != KeyKind.UInt64) return TryGet((Key)key, out value);
            ulong k = Keys.UInt64BE(key);
            return GetCore((byte*)&k, 8, out value);
        }
        /// <summary>Any key type (<see cref="DryDB.Key"/>): double, string, Guid,
        /// a tuple, ... encoded for this table.</summary>
        public bool TryGet(Key key, out byte[] value)
        {
            var k = Enc(key);
            fixed (byte* p = k) return TryGet(p, k.Length, out value);
        }

        /// <summary>As <see cref="TryGet(DryDB.Key, out byte[])"/>, under the name
        /// IDictionary uses.</summary>
        public bool TryGetValue(Key key, out byte[] value) { return TryGet(key, out value); }

        /// <summary>The value of the key; KeyNotFoundException (naming the key) if absent.</summary>
        public byte[] this[Key key]
        {
            get
            {
                var k = Enc(key);
                byte[] v;
                if (!TryGet(k, out v)) throw new KeyNotFoundException("drydb: key " + Describe(k) + " is not in " + What);
                return v;
            }
        }

        /// <summary>The value of the key, or null if absent.</summary>
        public byte[] Get(byte[] key) { byte[] v; return TryGet(key, out v) ? v : null; }
        public byte[] Get(long key) { byte[] v; return TryGet(key, out v) ? v : null; }
        public byte[] Get(ulong key) { byte[] v; return TryGet(key, out v) ? v : null; }
        public byte[] Get(Key key) { byte[] v; return TryGet(key, out v) ? v : null; }

        public bool ContainsKey(Key key) { byte[] v; return TryGet(key, out v); }

        // ------------------------------------------------------------ batches by key type

        static void CheckSpan(Array a, int index, int count, string name)
        {
            if (a == null) throw new ArgumentNullException(name);
            if (index < 0) throw new ArgumentOutOfRangeException(name + "Index");
            if (count < 0) throw new ArgumentOutOfRangeException("count");
            if (a.Length - index < count) throw new ArgumentException(name + " has fewer than count elements from the index", name);
        }

        /// <summary>Hot path for int64 tables: values of keys[keyIndex ..
        /// keyIndex+count) into values[valueIndex ..] (a copy, or null where absent),
        /// one crossing per 256 keys and no allocation besides the values. Returns
        /// the number found.</summary>
        public int GetMany(long[] keys, int keyIndex, byte[][] values, int valueIndex, int count)
        {
            CheckSpan(keys, keyIndex, count, "keys");
            CheckSpan(values, valueIndex, count, "values");
            if (kind != KeyKind.Int64) Kind(KeyKind.Int64);
            return ManyFixed(keys, null, keyIndex, values, valueIndex, count);
        }

        /// <summary>Hot path for uint64 tables; see GetMany(long[], int, byte[][], int, int).</summary>
        public int GetMany(ulong[] keys, int keyIndex, byte[][] values, int valueIndex, int count)
        {
            CheckSpan(keys, keyIndex, count, "keys");
            CheckSpan(values, valueIndex, count, "values");
            if (kind != KeyKind.UInt64) Kind(KeyKind.UInt64);
            return ManyFixed(null, keys, keyIndex, values, valueIndex, count);
        }

        /// <summary>Values of many keys in one crossing per 256 keys; null where absent.</summary>
        public byte[][] GetMany(IList<byte[]> keys)
        {
            if (keys == null) throw new ArgumentNullException("keys");
            int n = keys.Count, total = 0;
            for (int i = 0; i < n; i++)
            {
                if (keys[i] == null) throw new ArgumentException("keys[" + i + "] is null", "keys");
                total += keys[i].Length;
            }
            var flat = new byte[total];
            var lens = new UIntPtr[n];
            int off = 0;
            for (int i = 0; i < n; i++)
            {
                Buffer.BlockCopy(keys[i], 0, flat, off, keys[i].Length);
                off += keys[i].Length;
                lens[i] = (UIntPtr)keys[i].Length;
            }
            var r = new byte[n][];
            fixed (byte* f = flat) fixed (UIntPtr* l = lens) GetMany(n, f, l, r);
            return r;
        }

        public byte[][] GetMany(IList<long> keys)
        {
            var a = AsArray(keys);
            Kind(KeyKind.Int64);
            var r = new byte[a.Length][];
            ManyFixed(a, null, 0, r, 0, a.Length);
            return r;
        }
        public byte[][] GetMany(IList<ulong> keys)
        {
            var a = AsArray(keys);
            Kind(KeyKind.UInt64);
            var r = new byte[a.Length][];
            ManyFixed(null, a, 0, r, 0, a.Length);
            return r;
        }

        static T[] AsArray<T>(IList<T> keys)
        {
            if (keys == null) throw new ArgumentNullException("keys");
            var a = keys as T[];
            if (a == null) { a = new T[keys.Count]; keys.CopyTo(a, 0); }
            return a;
        }
        public byte[][] GetMany(IList<string> keys) { return GetMany(Encoded(keys)); }
        public byte[][] GetMany(IList<double> keys) { return GetMany(Encoded(keys)); }
        public byte[][] GetMany(IList<Guid> keys) { return GetMany(Encoded(keys)); }
        /// <summary>Keys of any type (tuples too), each encoded for this table.</summary>
        public byte[][] GetMany(IList<Key> keys) { return GetMany(Encoded(keys)); }

        byte[][] Encoded<T>(IList<T> keys)
        {
            if (keys == null) throw new ArgumentNullException("keys");
            var enc = new byte[keys.Count][];
            for (int i = 0; i < enc.Length; i++)
            {
                object o = keys[i];
                Key k = o is Key ? (Key)o : o is string ? (Key)(string)o : o is double ? (Key)(double)o : (Key)(Guid)o;
                if (k.IsNull) throw new ArgumentException("keys[" + i + "] is null", "keys");
                enc[i] = Enc(k);
            }
            return enc;
        }
    }
}
