// Index.cs - secondary indexes: get, get-all, range, prefix, count, cursors.
using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace DryDB
{
    /// <summary>A secondary index of a table: index key -> rows (index key order,
    /// then primary key order). Thread-safe; lives until the database is disposed.</summary>
    public sealed unsafe class Index
    {
        readonly Table table;
        readonly Database db;
        readonly IntPtr ih;

        public string Name { get; private set; }
        public Table Table { get { return table; } }
        public KeyKind KeyKind { get; private set; }
        public IReadOnlyList<KeyKind> Parts { get; private set; }
        public bool Unique { get; private set; }

        internal Index(Table table, string name, IntPtr ih, NativeIndexInfo ni)
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
                bool added = false;
                try
                {
                    db.AddRef(ref added);
                    NativeIndexInfo ni;
                    Native.Check(Native.drydb_index_info(ih, &ni));
                    return new IndexInfo { KeyKind = (KeyKind)ni.key_kind, Parts = Table.PartsOf(ni.parts, ni.nparts), Entries = (long)ni.entries, Unique = ni.unique != 0 };
                }
                finally { if (added) db.Release(); }
            }
        }

        public override string ToString() { return "Index(" + table.Name + "." + Name + ", " + KeyKind + ")"; }

        void Kind(KeyKind want) { if (KeyKind != want) Table.CheckKind(KeyKind, want, "index '" + Name + "'"); }

        // ------------------------------------------------------------ get

        /// <summary>The first entry whose index key equals <paramref name="indexKey"/>:
        /// the row's primary key and value (copies). False if none.</summary>
        public bool TryGet(byte[] indexKey, out byte[] primaryKey, out byte[] value)
        {
            if (indexKey == null) throw new ArgumentNullException("indexKey");
            bool added = false;
            try
            {
                db.AddRef(ref added);
                var cb = CopyBuffers.Current;
                cb.Want(true, true, false);
                int rc;
                fixed (byte* k = indexKey)
                    while ((rc = Native.drydb__copy_index_get(ih, k, (UIntPtr)indexKey.Length, cb.Cols)) == Native.FULL) cb.GrowFor(0);
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
            finally { if (added) db.Release(); }
        }
        public bool TryGet(long indexKey, out byte[] primaryKey, out byte[] value) { Kind(KeyKind.Int64); return TryGet(Keys.Int64(indexKey), out primaryKey, out value); }
        public bool TryGet(ulong indexKey, out byte[] primaryKey, out byte[] value) { Kind(KeyKind.UInt64); return TryGet(Keys.UInt64(indexKey), out primaryKey, out value); }
        public bool TryGet(double indexKey, out byte[] primaryKey, out byte[] value) { Kind(KeyKind.Float64); return TryGet(Keys.Float64(indexKey), out primaryKey, out value); }
        public bool TryGet(string indexKey, out byte[] primaryKey, out byte[] value) { Kind(KeyKind.String); return TryGet(Keys.String(indexKey), out primaryKey, out value); }
        public bool TryGet(Guid indexKey, out byte[] primaryKey, out byte[] value) { Kind(KeyKind.Uuid); return TryGet(Keys.Uuid(indexKey), out primaryKey, out value); }

        /// <summary>The value of the first row with that index key, or null.</summary>
        public byte[] Get(byte[] indexKey) { byte[] pk, v; return TryGet(indexKey, out pk, out v) ? v : null; }
        public byte[] Get(long indexKey) { byte[] pk, v; return TryGet(indexKey, out pk, out v) ? v : null; }
        public byte[] Get(string indexKey) { byte[] pk, v; return TryGet(indexKey, out pk, out v) ? v : null; }

        /// <summary>Every entry with exactly this index key (primary key order).</summary>
        public IEnumerable<IndexEntry> GetAll(byte[] indexKey)
        {
            if (indexKey == null) throw new ArgumentNullException("indexKey");
            return Range(Bound.Inclusive(indexKey), Bound.Inclusive(indexKey));
        }
        public IEnumerable<IndexEntry> GetAll(long indexKey) { Kind(KeyKind.Int64); return GetAll(Keys.Int64(indexKey)); }
        public IEnumerable<IndexEntry> GetAll(ulong indexKey) { Kind(KeyKind.UInt64); return GetAll(Keys.UInt64(indexKey)); }
        public IEnumerable<IndexEntry> GetAll(string indexKey) { Kind(KeyKind.String); return GetAll(Keys.String(indexKey)); }
        public IEnumerable<IndexEntry> GetAll(Guid indexKey) { Kind(KeyKind.Uuid); return GetAll(Keys.Uuid(indexKey)); }

        // ------------------------------------------------------------ count

        public long Count() { return Count(Bound.Unbounded, Bound.Unbounded); }
        public long Count(Bound lo, Bound hi)
        {
            lo.Validate("lo"); hi.Validate("hi");
            bool added = false;
            try
            {
                db.AddRef(ref added);
                ulong n; int rc;
                fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                    rc = Native.drydb_index_count(ih, l, Table.Len(lo.Key), (int)lo.Kind, h, Table.Len(hi.Key), (int)hi.Kind, &n);
                Native.Check(rc);
                return (long)n;
            }
            finally { if (added) db.Release(); }
        }
        /// <summary>Entries with lo &lt;= index key &lt;= hi; null = unbounded.</summary>
        public long Count(byte[] lo, byte[] hi) { return Count(Table.Incl(lo), Table.Incl(hi)); }
        public long Count(long lo, long hi) { Kind(KeyKind.Int64); return Count(Keys.Int64(lo), Keys.Int64(hi)); }
        public long Count(string lo, string hi) { Kind(KeyKind.String); return Count(lo == null ? null : Keys.String(lo), hi == null ? null : Keys.String(hi)); }
        /// <summary>Entries with exactly this index key.</summary>
        public long CountKey(byte[] indexKey)
        {
            if (indexKey == null) throw new ArgumentNullException("indexKey");
            return Count(Bound.Inclusive(indexKey), Bound.Inclusive(indexKey));
        }

        // ------------------------------------------------------------ ranges

        /// <summary>Entries with index keys within the bounds, in index order (or reversed).</summary>
        public IEnumerable<IndexEntry> Range(Bound lo, Bound hi, bool reverse = false)
        {
            lo.Validate("lo"); hi.Validate("hi");
            db.ThrowIfDisposed();
            return Iterate(lo, hi, null, reverse);
        }
        public IEnumerable<IndexEntry> Range(byte[] lo, byte[] hi, bool reverse = false) { return Range(Table.Incl(lo), Table.Incl(hi), reverse); }
        public IEnumerable<IndexEntry> Range(long lo, long hi, bool reverse = false) { Kind(KeyKind.Int64); return Range(Keys.Int64(lo), Keys.Int64(hi), reverse); }
        public IEnumerable<IndexEntry> Range(string lo, string hi, bool reverse = false) { Kind(KeyKind.String); return Range(lo == null ? null : Keys.String(lo), hi == null ? null : Keys.String(hi), reverse); }

        /// <summary>Entries whose index keys start with <paramref name="prefix"/>.</summary>
        public IEnumerable<IndexEntry> Prefix(byte[] prefix, bool reverse = false)
        {
            if (prefix == null) throw new ArgumentNullException("prefix");
            db.ThrowIfDisposed();
            return Iterate(Bound.Unbounded, Bound.Unbounded, prefix, reverse);
        }
        public IEnumerable<IndexEntry> Prefix(string prefix, bool reverse = false)
        {
            if (KeyKind != KeyKind.String && KeyKind != KeyKind.Bytes) Kind(KeyKind.String);
            return Prefix(Keys.String(prefix), reverse);
        }

        IEnumerable<IndexEntry> Iterate(Bound lo, Bound hi, byte[] prefix, bool reverse)
        {
            IntPtr cur = OpenRaw(lo, hi, prefix);
            try
            {
                var batch = new List<IndexEntry>(Table.BatchSize);
                while (Fill(cur, reverse, batch))
                    for (int i = 0; i < batch.Count; i++) yield return batch[i];
            }
            finally { Table.CloseRaw(db, cur); }
        }

        IntPtr OpenRaw(Bound lo, Bound hi, byte[] prefix)
        {
            bool added = false;
            try
            {
                db.AddRef(ref added);
                IntPtr cur; int rc;
                if (prefix != null)
                    fixed (byte* p = prefix) rc = Native.drydb_index_cursor_open_prefix(ih, p, (UIntPtr)prefix.Length, &cur);
                else
                    fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                        rc = Native.drydb_index_cursor_open(ih, l, Table.Len(lo.Key), (int)lo.Kind, h, Table.Len(hi.Key), (int)hi.Kind, &cur);
                Native.Check(rc);
                return cur;
            }
            finally { if (added) db.Release(); }
        }

        // One drydb__copy_cursor_batch (more when not one entry fits the
        // buffers, which then grow): index keys, primary keys and values copied
        // by the library into CopyBuffers, and into arrays from there.
        bool Fill(IntPtr cur, bool reverse, List<IndexEntry> batch)
        {
            batch.Clear();
            bool added = false;
            var cb = CopyBuffers.Current;
            try
            {
                db.AddRef(ref added);
                cb.Want(true, true, true);
                UIntPtr n;
                int rc;
                while ((rc = Native.drydb__copy_cursor_batch(cur, reverse ? 1 : 0, (UIntPtr)Table.BatchSize, cb.Cols, &n)) == Native.FULL
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
            finally { if (added) db.Release(); cb.Trim(); }
        }

        // ------------------------------------------------------------ cursors

        /// <summary>A cursor over index entries within the bounds: Key is the index
        /// key, Value the row's value, PrimaryKey the row's key.</summary>
        public Cursor OpenCursor(Bound lo, Bound hi)
        {
            lo.Validate("lo"); hi.Validate("hi");
            return Cursor.Create(db, true, () => OpenRaw(lo, hi, null));
        }
        public Cursor OpenCursor() { return OpenCursor(Bound.Unbounded, Bound.Unbounded); }
        public Cursor OpenPrefixCursor(byte[] prefix)
        {
            if (prefix == null) throw new ArgumentNullException("prefix");
            return Cursor.Create(db, true, () => OpenRaw(Bound.Unbounded, Bound.Unbounded, prefix));
        }

        // ------------------------------------------------------------ async twins

        public Task<byte[]> GetAsync(byte[] indexKey) { return Async.Run(() => Get(indexKey)); }
        public Task<List<IndexEntry>> GetAllAsync(byte[] indexKey) { return Async.Run(() => new List<IndexEntry>(GetAll(indexKey))); }
        public Task<long> CountAsync(Bound lo, Bound hi) { return Async.Run(() => Count(lo, hi)); }
        public Task<List<IndexEntry>> RangeAsync(Bound lo, Bound hi, bool reverse = false) { return Async.Run(() => new List<IndexEntry>(Range(lo, hi, reverse))); }
    }
}
