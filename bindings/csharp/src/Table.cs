// Table.cs - a table of an open database: point reads, batches, counts,
// ranks, n-th row, ranges, prefixes, cursors and indexes.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace DryDB
{
    /// <summary>A table of an open <see cref="Database"/>. Thread-safe; lives
    /// until the database is disposed (no Dispose of its own). Values returned
    /// as byte[] are copies owned by the caller.</summary>
    public sealed unsafe partial class Table
    {
        readonly Database db;
        readonly IntPtr th;
        readonly KeyKind kind; // KeyKind, as a field for the hot paths
        readonly Dictionary<string, SecondaryIndex> indexes = new Dictionary<string, SecondaryIndex>();

        public string Name { get; private set; }
        /// <summary>The encoding of the table's keys; a <see cref="DryDB.Key"/> is encoded
        /// against it (a key of another type is an ArgumentException).</summary>
        public KeyKind KeyKind { get; private set; }
        public IReadOnlyList<KeyKind> Parts { get; private set; }
        public Database Database { get { return db; } }

        internal Table(Database db, string name, IntPtr th, NativeTableInfo ni)
        {
            this.db = db; this.th = th; Name = name;
            KeyKind = kind = (KeyKind)ni.key_kind;
            Parts = PartsOf(ni.parts, ni.nparts);
        }

        internal static KeyKind[] PartsOf(byte* parts, uint n)
        {
            var r = new KeyKind[Math.Min(n, (uint)Native.MaxParts)];
            for (int i = 0; i < r.Length; i++) r[i] = (KeyKind)parts[i];
            return r;
        }

        public TableInfo Info
        {
            get
            {
                bool added = false;
                try
                {
                    db.AddRef(ref added);
                    NativeTableInfo ni;
                    Native.Check(Native.drydb_table_info(th, &ni));
                    return new TableInfo
                    {
                        KeyKind = (KeyKind)ni.key_kind, Parts = PartsOf(ni.parts, ni.nparts), Rows = (long)ni.rows,
                        IndexCount = (int)ni.index_count, Compression = (Compression)ni.compression,
                        Level = ni.level, Dictionary = (ni.flags & 1) != 0,
                    };
                }
                finally { if (added) db.Release(); }
            }
        }

        /// <summary>Names of the table's secondary indexes, sorted.</summary>
        public IReadOnlyList<string> Indexes
        {
            get
            {
                bool added = false;
                try
                {
                    db.AddRef(ref added);
                    var r = new List<string>();
                    for (int i = 0; ; i++)
                    {
                        byte* name;
                        int rc = Native.drydb_table_index_name(th, (UIntPtr)i, &name);
                        if (rc == (int)Status.NotFound) return r;
                        Native.Check(rc);
                        r.Add(Native.FromCString((IntPtr)name));
                    }
                }
                finally { if (added) db.Release(); }
            }
        }

        public override string ToString() { return "Table(" + Name + ", " + KeyKind + ")"; }

        /// <summary>The name of the values' encoding recorded in the file ("json",
        /// "msgpack", "raw", a user's name), "" when none. The byte[] calls
        /// ignore it; <see cref="GetDecoded"/>, <see cref="Get{T}"/>,
        /// <see cref="Decoded"/> and Cursor.DecodedValue decode by it (see <see cref="Codecs"/>).</summary>
        public string Codec
        {
            get
            {
                bool added = false;
                try
                {
                    db.AddRef(ref added);
                    IntPtr p;
                    Native.Check(Native.drydb_table_codec(th, &p));
                    return Native.FromCString(p);
                }
                finally { if (added) db.Release(); }
            }
        }

        // ------------------------------------------------------------ key checks

        internal static void CheckKind(KeyKind have, KeyKind want, string what)
        {
            if (have != want)
                throw new ArgumentException(string.Format("{0} has {1} keys; a {2} key does not fit it (use the byte[] overload with an encoded key)", what, have, want));
        }
        void Kind(KeyKind want) { if (KeyKind != want) CheckKind(KeyKind, want, "table '" + Name + "'"); }

        static void CheckKey(byte[] key, string name)
        {
            if (key == null) throw new ArgumentNullException(name);
        }

        string What { get { return "table '" + Name + "'"; } }

        /// <summary>A key encoded for this table.</summary>
        internal byte[] Enc(Key key) { return key.Encode(KeyKind, Parts, What); }

        /// <summary>The key as this table's kind reads: 42, "text", ("a", 1)...</summary>
        internal string Describe(byte[] key) { return Key.Describe(key, KeyKind, Parts); }

        // Both bounds encoded (Bounds.Resolve).
        void Resolve(Bound lo, Bound hi, out Bound l, out Bound h) { Bounds.Resolve(lo, hi, KeyKind, Parts, What, out l, out h); }

        // ------------------------------------------------------------ point reads

        /// <summary>Hot path: key as pointer + length. The value is copied.</summary>
        public bool TryGet(byte* key, int keyLength, out byte[] value)
        {
            if (keyLength < 0 || (key == null && keyLength != 0)) throw new ArgumentException("bad key pointer/length", "keyLength");
            return GetCore(key, keyLength, out value);
        }

        // One crossing (two for a value longer than this thread's buffer): the
        // library copies the value into CopyBuffers inside the call (see
        // CopyOut.cs), and the new array is filled from there.
        bool GetCore(byte* key, int keyLength, out byte[] value)
        {
            UIntPtr vl; int rc;
            var cb = CopyBuffers.Current;
            NativeCol c = cb.Cols[0];
            c.lens = &vl;
            db.Enter();
            try
            {
                rc = Native.drydb__copy_get(th, key, (UIntPtr)keyLength, &c);
                if (rc == Native.OK)
                {
                    // Native.Copy written out (Mono 6.8 would not inline it)
                    ulong n = (ulong)vl;
                    byte* v = c.buf;
                    var r = new byte[(int)n];
                    if (n - 8 <= 8)
                        fixed (byte* d = &r[0]) { *(ulong*)d = *(ulong*)v; *(ulong*)(d + n - 8) = *(ulong*)(v + n - 8); }
                    else if (n != 0) fixed (byte* d = &r[0]) Native.CopyBytes(v, d, (int)n);
                    value = r;
                    return true;
                }
                if (rc == Native.FULL)
                {
                    // longer than the buffer: asked again, into an array of its length
                    ulong n = (ulong)vl;
                    if (n > int.MaxValue) throw new OverflowException("drydb: a value of " + n + " bytes does not fit a byte[]");
                    var r = new byte[(int)n];
                    fixed (byte* d = r)
                    {
                        c.buf = d; c.cap = vl;
                        rc = Native.drydb__copy_get(th, key, (UIntPtr)keyLength, &c);
                    }
                    if (rc == Native.OK) { value = r; return true; }
                }
            }
            finally { db.Leave(); }
            value = null;
            if (rc == Native.NOTFOUND) return false;
            throw Native.Error(rc);
        }

        /// <summary>Hot path without allocation: copies the value into
        /// <paramref name="dest"/> if it fits. Returns the value's length, -1 if the
        /// key is absent; a result larger than dest.Length means nothing was copied.</summary>
        public int TryGet(byte* key, int keyLength, byte[] dest)
        {
            if (dest == null) throw new ArgumentNullException("dest");
            if (keyLength < 0 || (key == null && keyLength != 0)) throw new ArgumentException("bad key pointer/length", "keyLength");
            fixed (byte* d = dest) return GetInto(key, keyLength, d, dest.Length);
        }

        // The value copied into dest by the library (nothing when it is longer).
        int GetInto(byte* key, int keyLength, byte* dest, int destLength)
        {
            UIntPtr vl; int rc;
            NativeCol c;
            c.buf = dest; c.cap = (UIntPtr)destLength; c.lens = &vl;
            db.Enter();
            try { rc = Native.drydb__copy_get(th, key, (UIntPtr)keyLength, &c); }
            finally { db.Leave(); }
            if (rc == Native.NOTFOUND) return -1;
            if (rc != Native.OK && rc != Native.FULL) throw Native.Error(rc);
            ulong n = (ulong)vl;
            return n > int.MaxValue ? int.MaxValue : (int)n;
        }

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

#if NETCOREAPP || NETSTANDARD2_1
        // Span overloads (.NET builds; `make test-span` compiles them with mcs too).

        public bool TryGet(ReadOnlySpan<byte> key, out byte[] value)
        {
            fixed (byte* k = key) return TryGet(k, key.Length, out value);
        }

        /// <summary>Copies the value into <paramref name="dest"/> if it fits. Returns
        /// the value's length, -1 if absent; a result larger than dest.Length means
        /// nothing was copied.</summary>
        public int TryGet(ReadOnlySpan<byte> key, Span<byte> dest)
        {
            fixed (byte* k = key) fixed (byte* d = dest) return GetInto(k, key.Length, d, dest.Length);
        }

        public long Rank(ReadOnlySpan<byte> key)
        {
            bool added = false;
            try
            {
                db.AddRef(ref added);
                ulong n; int rc;
                fixed (byte* k = key) rc = Native.drydb_rank(th, k, (UIntPtr)key.Length, &n);
                Native.Check(rc);
                return (long)n;
            }
            finally { if (added) db.Release(); }
        }
#endif

        /// <summary>The value of the key, or null if absent.</summary>
        public byte[] Get(byte[] key) { byte[] v; return TryGet(key, out v) ? v : null; }
        public byte[] Get(long key) { byte[] v; return TryGet(key, out v) ? v : null; }
        public byte[] Get(ulong key) { byte[] v; return TryGet(key, out v) ? v : null; }
        public byte[] Get(Key key) { byte[] v; return TryGet(key, out v) ? v : null; }

        public bool ContainsKey(Key key) { byte[] v; return TryGet(key, out v); }

        // ------------------------------------------------------------ batches

        const int ManyChunk = 256;

        /// <summary>Hot path: n keys concatenated in <paramref name="keys"/> with
        /// their lengths; values[i] = copy of the value or null if absent. Returns
        /// the number found.</summary>
        public int GetMany(int n, byte* keys, UIntPtr* keyLengths, byte[][] values)
        {
            if (n < 0) throw new ArgumentException("n < 0", "n");
            if (values == null) throw new ArgumentNullException("values");
            if (values.Length < n) throw new ArgumentException("values is shorter than n", "values");
            if (n == 0) return 0;
            if (keys == null || keyLengths == null) throw new ArgumentNullException("keys");
            int found = 0, chunk = Math.Min(ManyChunk, n);
            byte* fnd = stackalloc byte[chunk];
            int done = 0;
            byte* kp = keys;
            while (done < n)
            {
                int c = Math.Min(ManyChunk, n - done);
                found += ManyChunkCopy(c, kp, keyLengths + done, fnd, values, done);
                for (int i = 0; i < c; i++) kp += (long)(ulong)keyLengths[done + i];
                done += c;
            }
            return found;
        }

        // drydb__copy_get_many crossings for c <= ManyChunk keys: the library
        // copies the values found into CopyBuffers' column 0, and each value's
        // array is filled from there. When they do not all fit, the keys not
        // answered are asked again (after the buffer grew, if not one fitted).
        int ManyChunkCopy(int c, byte* keys, UIntPtr* klens, byte* fnd, byte[][] values, int at)
        {
            int rc, found = 0, done = 0;
            var cb = CopyBuffers.Current;
            NativeCol* col = cb.Cols;
            cb.Want(true, false, false);
            db.Enter();
            try
            {
                for (;;)
                {
                    UIntPtr d;
                    rc = Native.drydb__copy_get_many(th, (UIntPtr)(c - done), keys, klens + done, col, fnd + done, &d);
                    if (rc != Native.OK && rc != Native.FULL) break;
                    int m = (int)(ulong)d;
                    byte* v = col->buf;
                    UIntPtr* vl = col->lens;
                    for (int i = 0; i < m; i++)
                    {
                        keys += (long)(ulong)klens[done + i];
                        if (fnd[done + i] == 0) { values[at + done + i] = null; continue; }
                        // the copy written out here: Mono 6.8 inlines none of
                        // Native.Copy's calls, which cost more than the copy
                        ulong n = (ulong)vl[i];
                        var r = new byte[(int)n];
                        if (n - 8 <= 8)
                            fixed (byte* dst = &r[0])
                            {
                                *(ulong*)dst = *(ulong*)v;
                                *(ulong*)(dst + n - 8) = *(ulong*)(v + n - 8);
                            }
                        else if (n != 0) fixed (byte* dst = &r[0]) Native.CopyBytes(v, dst, (int)n);
                        v += n;
                        values[at + done + i] = r;
                        found++;
                    }
                    done += m;
                    if (rc == Native.OK) break;
                    if (m == 0) cb.GrowFor(0);
                }
            }
            finally { db.Leave(); cb.Trim(); }
            if (rc != Native.OK) throw Native.Error(rc);
            return found;
        }

        /// <summary>Zero-copy batch lookup in one crossing: n keys concatenated in
        /// <paramref name="keys"/> with their lengths; writes values[i] (null if
        /// absent) and valueLengths[i] for i in [0, n). Returns the number found.
        /// The pointers are valid until the database is disposed for uncompressed
        /// tables, and for compressed ones until this thread's next
        /// TryGet/GetMany/TryGetAt/index get (all n stay valid together). Nothing
        /// keeps the database open while they are read: do not dispose it meanwhile.
        /// Nothing guards them either: reading a value whose page the file lost
        /// (truncated while open) kills the process with SIGBUS; the copying
        /// overloads report that as DryDBException (Status.Corrupt).</summary>
        public int GetMany(int n, byte* keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (n < 0) throw new ArgumentException("n < 0", "n");
            if (n == 0) return 0;
            if (keys == null || keyLengths == null) throw new ArgumentNullException("keys");
            if (values == null || valueLengths == null) throw new ArgumentNullException("values");
            return ManyRaw(n, keys, keyLengths, values, valueLengths);
        }

        int ManyRaw(int n, byte* keys, UIntPtr* klens, byte** values, UIntPtr* vlens)
        {
            byte[] heap = null;
            byte* fnd;
            if (n <= 4096) { byte* f = stackalloc byte[n]; fnd = f; }
            else { heap = new byte[n]; fixed (byte* f = heap) return ManyRawFound(n, keys, klens, values, vlens, f); }
            return ManyRawFound(n, keys, klens, values, vlens, fnd);
        }

        int ManyRawFound(int n, byte* keys, UIntPtr* klens, byte** values, UIntPtr* vlens, byte* fnd)
        {
            int rc;
            db.Enter();
            try { rc = Native.drydb_get_many(th, (UIntPtr)n, keys, klens, values, vlens, fnd); }
            finally { db.Leave(); }
            if (rc != Native.OK) throw Native.Error(rc);
            int found = 0;
            for (int i = 0; i < n; i++) found += fnd[i];
            return found;
        }

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

        // Per-thread scratch of ManyFixed: keys, key lengths (all 8, set once),
        // found flags. A managed array (freed with its thread), pinned per call:
        // cheaper than stackalloc, which zeroes it per call.
        [ThreadStatic] static ulong[] manyScratch;

        static ulong[] ManyScratch()
        {
            var s = manyScratch;
            if (s != null) return s;
            s = new ulong[2 * ManyChunk + ManyChunk / 8];
            for (int i = 0; i < ManyChunk; i++) s[ManyChunk + i] = 8;
            return manyScratch = s;
        }

        int ManyFixed(long[] keys, ulong[] ukeys, int keyIndex, byte[][] values, int valueIndex, int count)
        {
            if (count == 0) return 0;
            int found = 0;
            fixed (ulong* scratch = ManyScratch())
            {
                ulong* kb = scratch;
                UIntPtr* kl = (UIntPtr*)(scratch + ManyChunk);
                byte* fnd = (byte*)(scratch + 2 * ManyChunk);
                for (int done = 0; done < count;)
                {
                    int c = Math.Min(ManyChunk, count - done);
                    // Keys.UInt64BE written out: too large for Mono's inliner
                    if (BitConverter.IsLittleEndian)
                        for (int i = 0, j = keyIndex + done; i < c; i++, j++)
                        {
                            ulong v = keys != null ? (ulong)keys[j] ^ 0x8000000000000000UL : ukeys[j];
                            v = ((v & 0x00FF00FF00FF00FFUL) << 8) | ((v >> 8) & 0x00FF00FF00FF00FFUL);
                            v = ((v & 0x0000FFFF0000FFFFUL) << 16) | ((v >> 16) & 0x0000FFFF0000FFFFUL);
                            kb[i] = (v << 32) | (v >> 32);
                        }
                    else if (keys != null) for (int i = 0; i < c; i++) kb[i] = Keys.Int64BE(keys[keyIndex + done + i]);
                    else for (int i = 0; i < c; i++) kb[i] = Keys.UInt64BE(ukeys[keyIndex + done + i]);
                    found += ManyChunkCopy(c, (byte*)kb, kl, fnd, values, valueIndex + done);
                    done += c;
                }
            }
            return found;
        }

        /// <summary>Zero-copy batch lookup for int64 tables, in one crossing:
        /// writes values[i] (null if absent) and valueLengths[i] for the keys
        /// keys[keyIndex + i], i in [0, count). Returns the number found. Pointer
        /// lifetimes as for GetMany(int, byte*, UIntPtr*, byte**, UIntPtr*).</summary>
        public int GetMany(long[] keys, int keyIndex, int count, byte** values, UIntPtr* valueLengths)
        {
            CheckSpan(keys, keyIndex, count, "keys");
            if (values == null || valueLengths == null) throw new ArgumentNullException("values");
            if (kind != KeyKind.Int64) Kind(KeyKind.Int64);
            if (count == 0) return 0;
            if (count <= 1024)
            {
                ulong* kb = stackalloc ulong[count];
                UIntPtr* kl = stackalloc UIntPtr[count];
                return ManyRawInt64(keys, keyIndex, count, kb, kl, values, valueLengths);
            }
            var kbh = new ulong[count];
            var klh = new UIntPtr[count];
            fixed (ulong* kb = kbh) fixed (UIntPtr* kl = klh) return ManyRawInt64(keys, keyIndex, count, kb, kl, values, valueLengths);
        }

        int ManyRawInt64(long[] keys, int keyIndex, int count, ulong* kb, UIntPtr* kl, byte** values, UIntPtr* vlens)
        {
            for (int i = 0; i < count; i++) { kb[i] = Keys.Int64BE(keys[keyIndex + i]); kl[i] = (UIntPtr)8; }
            return ManyRaw(count, (byte*)kb, kl, values, vlens);
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
            if (keys == null) throw new ArgumentNullException("keys");
            Kind(KeyKind.Int64);
            var a = keys as long[];
            if (a == null) { a = new long[keys.Count]; keys.CopyTo(a, 0); }
            var r = new byte[a.Length][];
            ManyFixed(a, null, 0, r, 0, a.Length);
            return r;
        }
        public byte[][] GetMany(IList<ulong> keys)
        {
            if (keys == null) throw new ArgumentNullException("keys");
            Kind(KeyKind.UInt64);
            var a = keys as ulong[];
            if (a == null) { a = new ulong[keys.Count]; keys.CopyTo(a, 0); }
            var r = new byte[a.Length][];
            ManyFixed(null, a, 0, r, 0, a.Length);
            return r;
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

        // ------------------------------------------------------------ count, rank, n-th row

        /// <summary>Rows in the table.</summary>
        public long Count() { return Count(Bound.Unbounded, Bound.Unbounded); }

        /// <summary>Rows with keys within the bounds (the explicit form: each end
        /// inclusive, exclusive or unbounded).</summary>
        public long Count(Bound lo, Bound hi)
        {
            Bound l, h;
            Resolve(lo, hi, out l, out h);
            return CountCore(l, h);
        }

        // Count of encoded bounds.
        long CountCore(Bound lo, Bound hi)
        {
            bool added = false;
            try
            {
                db.AddRef(ref added);
                ulong n;
                int rc;
                fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                    rc = Native.drydb_count(th, l, Len(lo.Key), (int)lo.Kind, h, Len(hi.Key), (int)hi.Kind, &n);
                Native.Check(rc);
                return (long)n;
            }
            finally { if (added) db.Release(); }
        }

        /// <summary>Rows with lo &lt;= key &lt; hi, half-open as in every drydb
        /// language; a null string or byte[] is an open end (an empty byte[] is the
        /// smallest key, not an open end). Other ends: <see cref="Count(Bound, Bound)"/>.</summary>
        public long Count(Key lo, Key hi) { return Count(Bounds.Lower(lo), Bounds.Upper(hi)); }
        /// <summary>Encoded keys, [lo, hi); null (the literal too) is an open end.</summary>
        public long Count(byte[] lo, byte[] hi) { return Count(Bounds.Lower(lo), Bounds.Upper(hi)); }

        internal static UIntPtr Len(byte[] k) { return (UIntPtr)(k == null ? 0 : k.Length); }

        /// <summary>Number of keys smaller than <paramref name="key"/> (which need not exist).</summary>
        /// <summary>An encoded key (exact match for byte[], which the .NET build
        /// could also pass as a ReadOnlySpan).</summary>
        public long Rank(byte[] key) { return Rank((Key)key); }
        public long Rank(Key key)
        {
            var k0 = Enc(key);
            bool added = false;
            try
            {
                db.AddRef(ref added);
                ulong n;
                int rc;
                fixed (byte* k = k0) rc = Native.drydb_rank(th, k, (UIntPtr)k0.Length, &n);
                Native.Check(rc);
                return (long)n;
            }
            finally { if (added) db.Release(); }
        }

        /// <summary>The n-th row (0-based, key order); false if n &gt;= rows.</summary>
        public bool TryGetAt(long n, out byte[] key, out byte[] value)
        {
            if (n < 0) throw new ArgumentOutOfRangeException("n");
            bool added = false;
            try
            {
                db.AddRef(ref added);
                var cb = CopyBuffers.Current;
                cb.Want(true, true, false);
                int rc;
                while ((rc = Native.drydb__copy_at(th, (ulong)n, cb.Cols)) == Native.FULL) cb.GrowFor(0);
                if (rc == Native.OK)
                {
                    key = Native.Copy(cb.Buf(0), cb.Cols[0].lens[0]);
                    value = Native.Copy(cb.Buf(1), cb.Cols[1].lens[0]);
                    cb.Trim();
                    return true;
                }
                key = value = null;
                if (rc == Native.NOTFOUND) return false;
                throw Native.Error(rc);
            }
            finally { if (added) db.Release(); }
        }

        /// <summary>The n-th row; ArgumentOutOfRangeException if n &gt;= rows.</summary>
        public KeyValuePair<byte[], byte[]> At(long n)
        {
            byte[] k, v;
            if (!TryGetAt(n, out k, out v)) throw new ArgumentOutOfRangeException("n", "row " + n + " is past the end of table '" + Name + "'");
            return new KeyValuePair<byte[], byte[]>(k, v);
        }

        // ------------------------------------------------------------ ranges

        /// <summary>Rows with keys within the bounds, in key order (or reversed).
        /// Reads in batches (64 rows, then up to 256) with one drydb_range call each
        /// and no cursor; each key and value is a copy. Rows are read as the
        /// enumeration advances; a step after the database is disposed throws
        /// ObjectDisposedException.</summary>
        public IEnumerable<KeyValuePair<byte[], byte[]>> Range(Bound lo, Bound hi, bool reverse = false)
        {
            Bound l, h;
            Resolve(lo, hi, out l, out h);
            db.ThrowIfDisposed();
            return Iterate(l, h, reverse);
        }
        /// <summary>lo &lt;= key &lt; hi, half-open as in every drydb language; a
        /// null string or byte[] is an open end. Other ends: <c>Range(Bound, Bound, bool)</c>.</summary>
        public IEnumerable<KeyValuePair<byte[], byte[]>> Range(Key lo, Key hi, bool reverse = false) { return Range(Bounds.Lower(lo), Bounds.Upper(hi), reverse); }
        /// <summary>Encoded keys, [lo, hi); null (the literal too) is an open end.</summary>
        public IEnumerable<KeyValuePair<byte[], byte[]>> Range(byte[] lo, byte[] hi, bool reverse = false) { return Range(Bounds.Lower(lo), Bounds.Upper(hi), reverse); }

        /// <summary>Every row, in key order (or reversed).</summary>
        public IEnumerable<KeyValuePair<byte[], byte[]>> All(bool reverse = false) { return Range(Bound.Unbounded, Bound.Unbounded, reverse); }

        /// <summary>Rows whose keys start with <paramref name="prefix"/> (empty: all rows).
        /// Read in batches like Range.</summary>
        public IEnumerable<KeyValuePair<byte[], byte[]>> Prefix(Key prefix, bool reverse = false)
        {
            if (prefix.IsNull) throw new ArgumentNullException("prefix");
            var p = Enc(prefix);
            db.ThrowIfDisposed();
            Bound lo, hi;
            PrefixBounds(p, out lo, out hi);
            return Iterate(lo, hi, reverse);
        }

        /// <summary>The range of the keys that start with <paramref name="prefix"/>:
        /// [prefix, the prefix with its last byte below 0xFF incremented and the rest
        /// dropped), unbounded above when there is no such byte (the engine's
        /// PrefixBounds); the empty prefix is unbounded below too (bounds are keys,
        /// and the empty key is none of an int64 table's).</summary>
        internal static void PrefixBounds(byte[] prefix, out Bound lo, out Bound hi)
        {
            lo = prefix.Length == 0 ? Bound.Unbounded : Bound.Inclusive((byte[])prefix.Clone());
            var up = Bounds.Successor(prefix);
            hi = up == null ? Bound.Unbounded : Bound.Exclusive(up);
        }

        internal const int BatchSize = 64;
        const int MaxRangeBatch = CopyBuffers.Rows;

        IEnumerable<KeyValuePair<byte[], byte[]>> Iterate(Bound lo, Bound hi, bool reverse)
        {
            var batch = new List<KeyValuePair<byte[], byte[]>>(BatchSize);
            int max = BatchSize;
            for (;;)
            {
                // last: a copy of the batch's last key when the batch was full (the
                // range may go on: the next batch starts after it), else null
                byte[] last = FillRange(lo, hi, reverse, max, batch);
                for (int i = 0; i < batch.Count; i++) yield return batch[i];
                if (last == null) yield break;
                if (reverse) hi = Bound.Exclusive(last); else lo = Bound.Exclusive(last);
                if (max < MaxRangeBatch) max *= 2;
            }
        }

        // One drydb__copy_range call (more when not one row fits the buffers,
        // which then grow): the library copies the rows into CopyBuffers, and
        // each key and value array is filled from there.
        byte[] FillRange(Bound lo, Bound hi, bool reverse, int max, List<KeyValuePair<byte[], byte[]>> batch)
        {
            batch.Clear();
            byte[] last = null;
            int rc;
            var cb = CopyBuffers.Current;
            cb.Want(true, true, false);
            UIntPtr n;
            db.Enter();
            try
            {
                fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                    while ((rc = Native.drydb__copy_range(th, l, Len(lo.Key), (int)lo.Kind, h, Len(hi.Key), (int)hi.Kind,
                                                          reverse ? Native.REVERSE : 0u, (UIntPtr)max, cb.Cols, &n)) == Native.FULL
                           && (ulong)n == 0)
                        cb.GrowFor(0);
                if (rc == Native.OK || rc == Native.FULL)
                {
                    int c = (int)(ulong)n;
                    NativeCol* cols = cb.Cols;
                    byte* k = cols[0].buf, v = cols[1].buf;
                    UIntPtr* kl = cols[0].lens, vl = cols[1].lens;
                    byte[] key = null;
                    for (int i = 0; i < c; i++)
                    {
                        key = Native.Copy(k, kl[i]);
                        batch.Add(new KeyValuePair<byte[], byte[]>(key, Native.Copy(v, vl[i])));
                        k += (ulong)kl[i]; v += (ulong)vl[i];
                    }
                    // the range may go on after a full batch, or one cut short by the buffers
                    if (c == max || rc == Native.FULL) last = (byte[])key.Clone(); // the caller may change key

                }
            }
            finally { db.Leave(); cb.Trim(); }
            if (rc != Native.OK && rc != Native.FULL) throw Native.Error(rc);
            return last;
        }

        // ------------------------------------------------------------ zero-copy range batches

        /// <summary>Zero-copy range batch in one crossing, with no cursor to open or
        /// close: writes up to <paramref name="max"/> rows of the range lo..hi, in key
        /// order (descending with <paramref name="reverse"/>), as pointer + length into
        /// the caller's arrays (each of at least max elements), and returns how many.
        /// Fewer than max means the range has no more rows (0: none at all). To read
        /// on after a full batch, call again with the last key read as an exclusive
        /// bound (lo ascending, hi descending). <paramref name="values"/> and
        /// <paramref name="valueLengths"/> may both be null to read keys only.
        /// Bound kinds as in <see cref="Bound"/>; a bound's pointer and length are
        /// ignored when its kind is Unbounded, and read only during the call.
        /// Returned pointers: uncompressed tables, valid until the database is
        /// disposed; compressed tables, they live in this thread's buffer, valid until
        /// this thread's next TryGet, GetMany, TryGetAt, index get, ReadRange or
        /// Range/Prefix step (so copy a key of a compressed table before passing it
        /// back as a bound). Nothing keeps the database open while they are read: do
        /// not dispose it meanwhile. Nothing guards them either: reading a row whose
        /// page the file lost (truncated while open) kills the process with SIGBUS;
        /// Range reports that as DryDBException (Status.Corrupt). Do not write
        /// through them.</summary>
        /// <exception cref="ArgumentOutOfRangeException">max &lt; 0 or above 2^24, or a bad bound kind.</exception>
        /// <exception cref="ArgumentException">a negative bound length, a null bound pointer with a
        /// non-zero length, or only one of values/valueLengths given.</exception>
        /// <exception cref="ArgumentNullException">keys or keyLengths null while max &gt; 0.</exception>
        public int ReadRange(byte* lo, int loLength, BoundKind loKind, byte* hi, int hiLength, BoundKind hiKind,
                             bool reverse, int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            CheckRawBound(lo, loLength, loKind, "lo");
            CheckRawBound(hi, hiLength, hiKind, "hi");
            CheckBatch(max, keys, keyLengths, values, valueLengths);
            if (loKind == BoundKind.Unbounded) { lo = null; loLength = 0; }
            if (hiKind == BoundKind.Unbounded) { hi = null; hiLength = 0; }
            return RangeCore(lo, loLength, (int)loKind, hi, hiLength, (int)hiKind, reverse, max, keys, keyLengths, values, valueLengths);
        }

        /// <summary>Zero-copy range batch with <see cref="Bound"/> bounds; see
        /// <see cref="ReadRange(byte*, int, BoundKind, byte*, int, BoundKind, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.</summary>
        public int ReadRange(Bound lo, Bound hi, bool reverse, int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            Resolve(lo, hi, out lo, out hi);
            CheckBatch(max, keys, keyLengths, values, valueLengths);
            fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                return RangeCore(l, lo.Key == null ? 0 : lo.Key.Length, (int)lo.Kind, h, hi.Key == null ? 0 : hi.Key.Length, (int)hi.Kind,
                                 reverse, max, keys, keyLengths, values, valueLengths);
        }

        /// <summary>Zero-copy range batch of an int64 table, lo &lt;= key &lt; hi
        /// (half-open, as every two-key range), without allocating; see
        /// <see cref="ReadRange(byte*, int, BoundKind, byte*, int, BoundKind, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.
        /// To read on after a full ascending batch, call again with lo =
        /// Keys.ReadInt64(keys[n - 1]) + 1 (descending: hi = that key).</summary>
        public int ReadRange(long lo, long hi, bool reverse, int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (kind != KeyKind.Int64) Kind(KeyKind.Int64);
            CheckBatch(max, keys, keyLengths, values, valueLengths);
            ulong l = Keys.Int64BE(lo), h = Keys.Int64BE(hi);
            return RangeCore((byte*)&l, 8, Native.INCLUSIVE, (byte*)&h, 8, Native.EXCLUSIVE, reverse, max, keys, keyLengths, values, valueLengths);
        }

        /// <summary>Zero-copy range batch of a uint64 table, lo &lt;= key &lt; hi,
        /// without allocating; see <see cref="ReadRange(long, long, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.</summary>
        public int ReadRange(ulong lo, ulong hi, bool reverse, int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (kind != KeyKind.UInt64) Kind(KeyKind.UInt64);
            CheckBatch(max, keys, keyLengths, values, valueLengths);
            ulong l = Keys.UInt64BE(lo), h = Keys.UInt64BE(hi);
            return RangeCore((byte*)&l, 8, Native.INCLUSIVE, (byte*)&h, 8, Native.EXCLUSIVE, reverse, max, keys, keyLengths, values, valueLengths);
        }

        /// <summary>Zero-copy range batch into managed arrays (no unsafe code needed
        /// to call it): up to keys.Length rows; keys[i] (an address, read with
        /// Marshal.Copy or, on .NET, <c>new ReadOnlySpan&lt;byte&gt;((void*)keys[i], (int)keyLengths[i])</c>)
        /// and keyLengths[i], and values[i], valueLengths[i] unless both are null.
        /// Every array given holds at least keys.Length elements. Pointer lifetimes as in
        /// <see cref="ReadRange(byte*, int, BoundKind, byte*, int, BoundKind, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.</summary>
        public int ReadRange(Bound lo, Bound hi, bool reverse, IntPtr[] keys, UIntPtr[] keyLengths, IntPtr[] values, UIntPtr[] valueLengths)
        {
            if (keys == null) throw new ArgumentNullException("keys");
            if (keyLengths == null) throw new ArgumentNullException("keyLengths");
            int max = keys.Length;
            if (keyLengths.Length < max) throw new ArgumentException("keyLengths is shorter than keys", "keyLengths");
            if ((values == null) != (valueLengths == null)) throw new ArgumentException("values and valueLengths must both be given or both be null", "values");
            if (values != null && (values.Length < max || valueLengths.Length < max)) throw new ArgumentException("values or valueLengths is shorter than keys", "values");
            if (max == 0) { lo.Validate("lo"); hi.Validate("hi"); db.ThrowIfDisposed(); return 0; }
            fixed (IntPtr* k = keys) fixed (UIntPtr* kl = keyLengths) fixed (IntPtr* v = values) fixed (UIntPtr* vl = valueLengths)
                return ReadRange(lo, hi, reverse, max, (byte**)k, kl, (byte**)v, vl);
        }

#if NETCOREAPP || NETSTANDARD2_1
        /// <summary>Zero-copy range batch with span bounds and span outputs: up to
        /// keys.Length rows; read row i as <c>new ReadOnlySpan&lt;byte&gt;((void*)keys[i], (int)keyLengths[i])</c>.
        /// values and valueLengths both empty: keys only; otherwise each holds at
        /// least keys.Length elements. A bound span is ignored when its kind is
        /// Unbounded (an empty span with another kind is the empty key). Pointer
        /// lifetimes as in
        /// <see cref="ReadRange(byte*, int, BoundKind, byte*, int, BoundKind, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.</summary>
        public int ReadRange(ReadOnlySpan<byte> lo, BoundKind loKind, ReadOnlySpan<byte> hi, BoundKind hiKind, bool reverse,
                             Span<IntPtr> keys, Span<UIntPtr> keyLengths, Span<IntPtr> values, Span<UIntPtr> valueLengths)
        {
            int max = keys.Length;
            if (keyLengths.Length < max) throw new ArgumentException("keyLengths is shorter than keys", "keyLengths");
            bool withValues = values.Length != 0 || valueLengths.Length != 0;
            if (withValues && (values.Length < max || valueLengths.Length < max)) throw new ArgumentException("values or valueLengths is shorter than keys", "values");
            CheckRawBound(null, 0, loKind, "lo"); CheckRawBound(null, 0, hiKind, "hi");
            if (max == 0) { db.ThrowIfDisposed(); return 0; }
            fixed (byte* l = lo) fixed (byte* h = hi)
            fixed (IntPtr* k = keys) fixed (UIntPtr* kl = keyLengths) fixed (IntPtr* v = values) fixed (UIntPtr* vl = valueLengths)
                return RangeCore(loKind == BoundKind.Unbounded ? null : l, loKind == BoundKind.Unbounded ? 0 : lo.Length, (int)loKind,
                                 hiKind == BoundKind.Unbounded ? null : h, hiKind == BoundKind.Unbounded ? 0 : hi.Length, (int)hiKind,
                                 reverse, max, (byte**)k, kl, withValues ? (byte**)v : null, withValues ? vl : null);
        }
#endif

        static void CheckRawBound(byte* key, int length, BoundKind kind, string name)
        {
            if (kind == BoundKind.Unbounded) return;
            if (kind != BoundKind.Inclusive && kind != BoundKind.Exclusive) throw new ArgumentOutOfRangeException(name + "Kind", "bad bound kind " + (int)kind);
            if (length < 0 || (key == null && length != 0)) throw new ArgumentException("bad " + name + " pointer/length", name + "Length");
        }

        static void CheckBatch(int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (max < 0 || max > Native.MaxBatch) throw new ArgumentOutOfRangeException("max", "max must be within [0, 2^24]");
            if (max > 0 && (keys == null || keyLengths == null)) throw new ArgumentNullException("keys");
            if ((values == null) != (valueLengths == null)) throw new ArgumentException("values and valueLengths must both be given or both be null", "values");
        }

        // One drydb_range crossing; arguments already checked.
        int RangeCore(byte* lo, int loLength, int loKind, byte* hi, int hiLength, int hiKind, bool reverse, int max,
                      byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (max == 0) { db.ThrowIfDisposed(); return 0; }
            UIntPtr n; int rc;
            db.Enter();
            try
            {
                rc = Native.drydb_range(th, lo, (UIntPtr)loLength, loKind, hi, (UIntPtr)hiLength, hiKind,
                                        reverse ? Native.REVERSE : 0u, (UIntPtr)max, keys, keyLengths, values, valueLengths, &n);
            }
            finally { db.Leave(); }
            if (rc != Native.OK) throw Native.Error(rc);
            return (int)(ulong)n;
        }

        // ------------------------------------------------------------ cursors

        IntPtr OpenRaw(Bound lo, Bound hi, byte[] prefix)
        {
            bool added = false;
            try
            {
                db.AddRef(ref added);
                IntPtr cur; int rc;
                if (prefix != null)
                    fixed (byte* p = prefix) rc = Native.drydb_cursor_open_prefix(th, p, (UIntPtr)prefix.Length, &cur);
                else
                    fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                        rc = Native.drydb_cursor_open(th, l, Len(lo.Key), (int)lo.Kind, h, Len(hi.Key), (int)hi.Kind, &cur);
                Native.Check(rc);
                return cur;
            }
            finally { if (added) db.Release(); }
        }

        internal static void CloseRaw(Database db, IntPtr cur)
        {
            // After the database is closed its cursors are already freed.
            bool added = false;
            try
            {
                if (db.IsDisposed) return;
                try { db.AddRef(ref added); } catch (ObjectDisposedException) { return; }
                Native.drydb_cursor_close(cur);
            }
            finally { if (added) db.Release(); }
        }

        /// <summary>A cursor over the whole table (zero-copy access to the current row).</summary>
        public Cursor OpenCursor() { return OpenCursor(Bound.Unbounded, Bound.Unbounded); }

        /// <summary>A cursor over the keys within the bounds. It starts
        /// unpositioned: Next() goes to the first row, Prev() to the last.</summary>
        public Cursor OpenCursor(Bound lo, Bound hi)
        {
            Bound l, h;
            Resolve(lo, hi, out l, out h);
            return Typed(Cursor.Create(db, false, () => OpenRaw(l, h, null)));
        }

        /// <summary>A cursor over the keys starting with <paramref name="prefix"/>.</summary>
        public Cursor OpenPrefixCursor(Key prefix)
        {
            if (prefix.IsNull) throw new ArgumentNullException("prefix");
            var p = Enc(prefix);
            return Typed(Cursor.Create(db, false, () => OpenRaw(Bound.Unbounded, Bound.Unbounded, p)));
        }

        Cursor Typed(Cursor c) { c.KeyKind = KeyKind; c.Encoder = Enc; c.Decoder = Decode; return c; }

        // ------------------------------------------------------------ indexes

        /// <summary>The secondary index called <paramref name="name"/>;
        /// DryDBException (Status.NoIndex) if absent. The same object every time.</summary>
        public SecondaryIndex Index(string name)
        {
            if (name == null) throw new ArgumentNullException("name");
            lock (indexes)
            {
                SecondaryIndex ix;
                if (indexes.TryGetValue(name, out ix)) { db.ThrowIfDisposed(); return ix; }
            }
            var cname = Native.CString(name, "name");
            bool added = false;
            try
            {
                db.AddRef(ref added);
                IntPtr ih;
                fixed (byte* p = cname) Native.Check(Native.drydb_index_open(th, p, &ih));
                NativeIndexInfo ni;
                Native.Check(Native.drydb_index_info(ih, &ni));
                var ix = new SecondaryIndex(this, name, ih, ni);
                lock (indexes)
                {
                    SecondaryIndex old;
                    if (indexes.TryGetValue(name, out old)) return old;
                    indexes[name] = ix;
                }
                return ix;
            }
            finally { if (added) db.Release(); }
        }

        // ------------------------------------------------------------ async twins
        // drydb reads memory-mapped pages: calls are short and complete synchronously.
        // Failures are reported through the task, as an async method would.

        /// <summary>The value, or null if the key is absent. A token already
        /// cancelled gives a cancelled task (the call itself is too short to
        /// interrupt).</summary>
        public Task<byte[]> GetAsync(Key key, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Get(key), cancellationToken); }
        public Task<byte[][]> GetManyAsync(IList<Key> keys, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => GetMany(keys), cancellationToken); }
        public Task<byte[][]> GetManyAsync(IList<byte[]> keys, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => GetMany(keys), cancellationToken); }
        public Task<long> CountAsync(CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Count(), cancellationToken); }
        public Task<long> CountAsync(Bound lo, Bound hi, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Count(lo, hi), cancellationToken); }
        /// <summary>[lo, hi), as <c>Count(Key, Key)</c>.</summary>
        public Task<long> CountAsync(Key lo, Key hi, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Count(lo, hi), cancellationToken); }
        /// <summary>The rows of the range, materialised in a list; the token is
        /// checked between rows, so a long range stops when it is cancelled.</summary>
        public Task<List<KeyValuePair<byte[], byte[]>>> RangeAsync(Bound lo, Bound hi, bool reverse = false, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Async.List(() => Range(lo, hi, reverse), cancellationToken);
        }
        /// <summary>[lo, hi), as <c>Range(Key, Key, bool)</c>.</summary>
        public Task<List<KeyValuePair<byte[], byte[]>>> RangeAsync(Key lo, Key hi, bool reverse = false, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Async.List(() => Range(lo, hi, reverse), cancellationToken);
        }
        public Task<List<KeyValuePair<byte[], byte[]>>> PrefixAsync(Key prefix, bool reverse = false, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Async.List(() => Prefix(prefix, reverse), cancellationToken);
        }

        // ------------------------------------------------------------ typed values

        /// <summary>This table viewed through a value serializer (MessagePack,
        /// JSON... of the caller's choosing).</summary>
        public TypedTable<T> WithSerializer<T>(Func<byte[], T> deserialize)
        {
            return new TypedTable<T>(this, deserialize);
        }
    }

    internal static class Async
    {
        // drydb calls are short and complete synchronously: the twins run them
        // at once and report through the task, as an async method would; a
        // cancelled token gives a cancelled task.
        internal static Task<T> Run<T>(Func<T> f, CancellationToken ct = default(CancellationToken))
        {
            var tcs = new TaskCompletionSource<T>();
            try
            {
                ct.ThrowIfCancellationRequested();
                tcs.SetResult(f());
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested) { tcs.SetCanceled(); }
            catch (Exception e) { tcs.SetException(e); }
            return tcs.Task;
        }

        // A walk materialised, the token checked before every row.
        internal static Task<List<T>> List<T>(Func<IEnumerable<T>> walk, CancellationToken ct)
        {
            return Run(() =>
            {
                var r = new List<T>();
                foreach (var x in walk())
                {
                    ct.ThrowIfCancellationRequested();
                    r.Add(x);
                }
                return r;
            }, ct);
        }
    }
}
