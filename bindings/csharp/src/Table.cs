// Table.cs - a table of an open database, the core: its state, the copying
// read paths (one value, many values, range batches), counts, ranks, n-th
// row, ranges, prefixes, cursors and indexes. The rest of the class, by
// concern: Table.Typed.cs (overloads by key type), Table.Raw.cs (pointers and
// spans), Table.Async.cs (async twins), Table.Codecs.cs (value codecs).
using System;
using System.Collections.Generic;

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
                using (db.Call())
                {
                    NativeTableInfo ni;
                    Native.Check(Native.drydb_table_info(th, &ni));
                    return new TableInfo
                    {
                        KeyKind = (KeyKind)ni.key_kind, Parts = PartsOf(ni.parts, ni.nparts), Rows = (long)ni.rows,
                        IndexCount = (int)ni.index_count, Compression = (Compression)ni.compression,
                        Level = ni.level, Dictionary = (ni.flags & Native.Dictionary) != 0, Hashed = (ni.flags & Native.HashOn) != 0,
                    };
                }
            }
        }

        /// <summary>Names of the table's secondary indexes, sorted.</summary>
        public IReadOnlyList<string> Indexes
        {
            get
            {
                using (db.Call())
                {
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
            }
        }

        public override string ToString() { return "Table(" + Name + ", " + KeyKind + ")"; }


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


        // ------------------------------------------------------------ batches

        const int ManyChunk = 256;

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
            using (db.Call())
            {
                ulong n;
                int rc;
                fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                    rc = Native.drydb_count(th, l, Len(lo.Key), (int)lo.Kind, h, Len(hi.Key), (int)hi.Kind, &n);
                Native.Check(rc);
                return (long)n;
            }
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
            using (db.Call())
            {
                ulong n;
                int rc;
                fixed (byte* k = k0) rc = Native.drydb_rank(th, k, (UIntPtr)k0.Length, &n);
                Native.Check(rc);
                return (long)n;
            }
        }

        /// <summary>The n-th row (0-based, key order); false if n &gt;= rows.</summary>
        public bool TryGetAt(long n, out byte[] key, out byte[] value)
        {
            if (n < 0) throw new ArgumentOutOfRangeException("n");
            using (db.Call())
            {
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
        /// Reads in batches (16 rows, doubling up to 256) with one drydb_range call each
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

        // Range, Prefix and index enumerations read batches sized to what is
        // consumed: FirstBatch rows first, so that taking the first few rows of
        // a long range costs about that many, then doubling up to
        // CopyBuffers.Rows, so that a long walk costs few crossings. Not const:
        // the tests and the bench try other first sizes (1 to CopyBuffers.Rows).
        internal static int FirstBatch = 16;
        internal static int NextBatch(int max) { return Math.Min(2 * max, CopyBuffers.Rows); }

        IEnumerable<KeyValuePair<byte[], byte[]>> Iterate(Bound lo, Bound hi, bool reverse)
        {
            int max = FirstBatch;
            var batch = new List<KeyValuePair<byte[], byte[]>>(max);
            for (;;)
            {
                // last: a copy of the batch's last key when the batch was full (the
                // range may go on: the next batch starts after it), else null
                byte[] last = FillRange(lo, hi, reverse, max, batch);
                for (int i = 0; i < batch.Count; i++) yield return batch[i];
                if (last == null) yield break;
                if (reverse) hi = Bound.Exclusive(last); else lo = Bound.Exclusive(last);
                max = NextBatch(max);
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

        // ------------------------------------------------------------ cursors

        IntPtr OpenRaw(Bound lo, Bound hi, byte[] prefix)
        {
            using (db.Call())
            {
                IntPtr cur; int rc;
                if (prefix != null)
                    fixed (byte* p = prefix) rc = Native.drydb_cursor_open_prefix(th, p, (UIntPtr)prefix.Length, &cur);
                else
                    fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                        rc = Native.drydb_cursor_open(th, l, Len(lo.Key), (int)lo.Kind, h, Len(hi.Key), (int)hi.Kind, &cur);
                Native.Check(rc);
                return cur;
            }
        }

        internal static void CloseRaw(Database db, IntPtr cur)
        {
            // After the database is closed its cursors are already freed.
            if (db.IsDisposed) return;
            Database.CallRef call;
            try { call = db.Call(); } catch (ObjectDisposedException) { return; }
            using (call) Native.drydb_cursor_close(cur);
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
            using (db.Call())
            {
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
        }
    }
}
