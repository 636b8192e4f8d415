// SecondaryIndex.cs - secondary indexes: get, get-all, range, prefix, count, cursors.
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace DryDB
{
    /// <summary>A secondary index of a table: index key -> rows (index key order,
    /// then primary key order). Thread-safe; lives until the database is disposed.</summary>
    public sealed unsafe class SecondaryIndex
    {
        readonly Table table;
        readonly Database db;
        readonly IntPtr ih;

        public string Name { get; private set; }
        public Table Table { get { return table; } }
        public KeyKind KeyKind { get; private set; }
        public IReadOnlyList<KeyKind> Parts { get; private set; }
        public bool Unique { get; private set; }

        internal SecondaryIndex(Table table, string name, IntPtr ih, NativeIndexInfo ni)
        {
            this.table = table; db = table.Database; this.ih = ih; Name = name;
            KeyKind = (KeyKind)ni.key_kind;
            Parts = Table.PartsOf(ni.parts, ni.nparts);
            Unique = ni.unique != 0;
        }

        public IndexInfo Info
        {
            get
            {
                using (db.Call())
                {
                    NativeIndexInfo ni;
                    Native.Check(Native.drydb_index_info(ih, &ni));
                    return new IndexInfo { KeyKind = (KeyKind)ni.key_kind, Parts = Table.PartsOf(ni.parts, ni.nparts), Entries = (long)ni.entries, Unique = ni.unique != 0 };
                }
            }
        }

        public override string ToString() { return "SecondaryIndex(" + table.Name + "." + Name + ", " + KeyKind + ")"; }

        string What { get { return "index '" + table.Name + "." + Name + "'"; } }

        /// <summary>An index key encoded for this index.</summary>
        byte[] Enc(Key key) { return key.Encode(KeyKind, Parts, What); }

        // Both bounds encoded (Bounds.Resolve).
        void Resolve(Bound lo, Bound hi, out Bound l, out Bound h) { Bounds.Resolve(lo, hi, KeyKind, Parts, What, out l, out h); }

        // ------------------------------------------------------------ get

        /// <summary>The first entry whose index key equals <paramref name="indexKey"/>:
        /// the row's primary key and value (copies). False if none.</summary>
        public bool TryGet(Key indexKey, out byte[] primaryKey, out byte[] value)
        {
            if (indexKey.IsNull) throw new ArgumentNullException("indexKey");
            var ik = Enc(indexKey);
            using (db.Call())
            {
                var cb = CopyBuffers.Current;
                cb.Want(true, true, false);
                int rc;
                fixed (byte* k = ik)
                    while ((rc = Native.drydb__copy_index_get(ih, k, (UIntPtr)ik.Length, cb.Cols)) == Native.FULL) cb.GrowFor(0);
                if (rc == Native.OK)
                {
                    primaryKey = Native.Copy(cb.Buf(0), cb.Cols[0].lens[0]);
                    value = Native.Copy(cb.Buf(1), cb.Cols[1].lens[0]);
                    cb.Trim();
                    return true;
                }
                primaryKey = value = null;
                if (rc == Native.NOTFOUND) return false;
                throw Native.Error(rc);
            }
        }

        /// <summary>The value of the first row with that index key, or null.</summary>
        public byte[] Get(Key indexKey) { byte[] pk, v; return TryGet(indexKey, out pk, out v) ? v : null; }

        /// <summary>As <see cref="TryGet"/>, the value decoded by the table's codec
        /// (see <see cref="DryDB.Table.GetDecoded"/>).</summary>
        public bool TryGetDecoded(Key indexKey, out byte[] primaryKey, out object value)
        {
            byte[] v;
            if (!TryGet(indexKey, out primaryKey, out v)) { value = null; return false; }
            value = table.Decode(v);
            return true;
        }

        /// <summary>The decoded value of the first row with that index key, or null.</summary>
        public object GetDecoded(Key indexKey) { byte[] pk; object v; return TryGetDecoded(indexKey, out pk, out v) ? v : null; }

        /// <summary>Every entry with exactly this index key (primary key order); a
        /// partial tuple: every entry whose index key starts with it.</summary>
        public IEnumerable<IndexEntry> GetAll(Key indexKey)
        {
            return Range(Bound.Inclusive(indexKey), Bound.Inclusive(indexKey));
        }

        // ------------------------------------------------------------ count

        public long Count() { return Count(Bound.Unbounded, Bound.Unbounded); }
        public long Count(Bound lo, Bound hi)
        {
            Bound l, h;
            Resolve(lo, hi, out l, out h);
            return CountCore(l, h);
        }

        long CountCore(Bound lo, Bound hi)
        {
            using (db.Call())
            {
                ulong n; int rc;
                fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                    rc = Native.drydb_index_count(ih, l, Table.Len(lo.Key), (int)lo.Kind, h, Table.Len(hi.Key), (int)hi.Kind, &n);
                Native.Check(rc);
                return (long)n;
            }
        }
        /// <summary>Entries with lo &lt;= index key &lt; hi (half-open, as in every
        /// drydb language); a null string or byte[] is an open end.</summary>
        public long Count(Key lo, Key hi) { return Count(Bounds.Lower(lo), Bounds.Upper(hi)); }
        public long Count(byte[] lo, byte[] hi) { return Count(Bounds.Lower(lo), Bounds.Upper(hi)); }
        /// <summary>Entries with exactly this index key (a partial tuple: with this prefix).</summary>
        public long CountKey(Key indexKey)
        {
            return Count(Bound.Inclusive(indexKey), Bound.Inclusive(indexKey));
        }

        // ------------------------------------------------------------ ranges

        /// <summary>Entries with index keys within the bounds, in index order (or reversed).</summary>
        public IEnumerable<IndexEntry> Range(Bound lo, Bound hi, bool reverse = false)
        {
            Bound l, h;
            Resolve(lo, hi, out l, out h);
            db.ThrowIfDisposed();
            return Iterate(l, h, null, reverse);
        }
        /// <summary>lo &lt;= index key &lt; hi (half-open, as in every drydb
        /// language); a null string or byte[] is an open end.</summary>
        public IEnumerable<IndexEntry> Range(Key lo, Key hi, bool reverse = false) { return Range(Bounds.Lower(lo), Bounds.Upper(hi), reverse); }
        public IEnumerable<IndexEntry> Range(byte[] lo, byte[] hi, bool reverse = false) { return Range(Bounds.Lower(lo), Bounds.Upper(hi), reverse); }

        /// <summary>Entries whose index keys start with <paramref name="prefix"/>.</summary>
        public IEnumerable<IndexEntry> Prefix(Key prefix, bool reverse = false)
        {
            if (prefix.IsNull) throw new ArgumentNullException("prefix");
            var p = Enc(prefix);
            db.ThrowIfDisposed();
            return Iterate(Bound.Unbounded, Bound.Unbounded, p, reverse);
        }

        IEnumerable<IndexEntry> Iterate(Bound lo, Bound hi, byte[] prefix, bool reverse)
        {
            IntPtr cur = OpenRaw(lo, hi, prefix);
            try
            {
                int max = Table.FirstBatch;
                var batch = new List<IndexEntry>(max);
                while (Fill(cur, reverse, max, batch))
                {
                    for (int i = 0; i < batch.Count; i++) yield return batch[i];
                    max = Table.NextBatch(max);
                }
            }
            finally { Table.CloseRaw(db, cur); }
        }

        IntPtr OpenRaw(Bound lo, Bound hi, byte[] prefix)
        {
            using (db.Call())
            {
                IntPtr cur; int rc;
                if (prefix != null)
                    fixed (byte* p = prefix) rc = Native.drydb_index_cursor_open_prefix(ih, p, (UIntPtr)prefix.Length, &cur);
                else
                    fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                        rc = Native.drydb_index_cursor_open(ih, l, Table.Len(lo.Key), (int)lo.Kind, h, Table.Len(hi.Key), (int)hi.Kind, &cur);
                Native.Check(rc);
                return cur;
            }
        }

        // One drydb__copy_cursor_batch (more when not one entry fits the
        // buffers, which then grow): index keys, primary keys and values copied
        // by the library into CopyBuffers, and into arrays from there.
        bool Fill(IntPtr cur, bool reverse, int max, List<IndexEntry> batch)
        {
            batch.Clear();
            var cb = CopyBuffers.Current;
            try
            {
                using (db.Call())
                {
                    cb.Want(true, true, true);
                    UIntPtr n;
                    int rc;
                    while ((rc = Native.drydb__copy_cursor_batch(cur, reverse ? 1 : 0, (UIntPtr)max, cb.Cols, &n)) == Native.FULL
                           && (ulong)n == 0)
                        cb.GrowFor(0);
                    if (rc == Native.NOTFOUND) return false;
                    if (rc != Native.FULL) Native.Check(rc);
                    int c = (int)(ulong)n;
                    NativeCol* cols = cb.Cols;
                    byte* k = cols[0].buf, p = cols[1].buf, v = cols[2].buf;
                    UIntPtr* kl = cols[0].lens, pl = cols[1].lens, vl = cols[2].lens;
                    for (int i = 0; i < c; i++)
                    {
                        batch.Add(new IndexEntry(Native.Copy(k, kl[i]), Native.Copy(p, pl[i]), Native.Copy(v, vl[i])));
                        k += (ulong)kl[i]; p += (ulong)pl[i]; v += (ulong)vl[i];
                    }
                    return c > 0;
                }
            }
            finally { cb.Trim(); }
        }

        // ------------------------------------------------------------ cursors

        /// <summary>A cursor over index entries within the bounds: Key is the index
        /// key, Value the row's value, PrimaryKey the row's key.</summary>
        public Cursor OpenCursor(Bound lo, Bound hi)
        {
            Bound l, h;
            Resolve(lo, hi, out l, out h);
            return Typed(Cursor.Create(db, true, () => OpenRaw(l, h, null)));
        }
        public Cursor OpenCursor() { return OpenCursor(Bound.Unbounded, Bound.Unbounded); }
        public Cursor OpenPrefixCursor(Key prefix)
        {
            if (prefix.IsNull) throw new ArgumentNullException("prefix");
            var p = Enc(prefix);
            return Typed(Cursor.Create(db, true, () => OpenRaw(Bound.Unbounded, Bound.Unbounded, p)));
        }

        Cursor Typed(Cursor c) { c.KeyKind = KeyKind; c.Encoder = Enc; c.Decoder = table.Decode; return c; }

        // ------------------------------------------------------------ async twins

        public Task<byte[]> GetAsync(Key indexKey, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Get(indexKey), cancellationToken); }
        public Task<List<IndexEntry>> GetAllAsync(Key indexKey, CancellationToken cancellationToken = default(CancellationToken)) { return Async.List(() => GetAll(indexKey), cancellationToken); }
        public Task<long> CountAsync(Bound lo, Bound hi, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Count(lo, hi), cancellationToken); }
        public Task<long> CountAsync(Key lo, Key hi, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Count(lo, hi), cancellationToken); }
        public Task<List<IndexEntry>> RangeAsync(Bound lo, Bound hi, bool reverse = false, CancellationToken cancellationToken = default(CancellationToken)) { return Async.List(() => Range(lo, hi, reverse), cancellationToken); }
        public Task<List<IndexEntry>> RangeAsync(Key lo, Key hi, bool reverse = false, CancellationToken cancellationToken = default(CancellationToken)) { return Async.List(() => Range(lo, hi, reverse), cancellationToken); }
    }
}
