// Builder.cs - building a database: tables, rows, indexes, metadata.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;

namespace DryDB
{
    internal sealed class BuilderHandle : SafeHandle
    {
        internal BuilderHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        internal IntPtr Raw { get { return handle; } }
        internal void Set(IntPtr h) { SetHandle(h); }
        protected override bool ReleaseHandle() { return Native.drydb_builder_free(handle) == Native.OK; }
    }

    /// <summary>Options of a <see cref="DatabaseBuilder"/>.</summary>
    public sealed class BuilderOptions
    {
        /// <summary>0 = 4096; else a power of two in [512, 65536].</summary>
        public int PageSize { get; set; }
        /// <summary>Bytes of RAM for sorting indexes before spilling (0 = 256 MiB).</summary>
        public long MemoryBudget { get; set; }
        /// <summary>The file format: <see cref="FileFormat.Native"/> (null too) or
        /// <see cref="FileFormat.DryDB14"/>.</summary>
        public string Format { get; set; }
    }

    /// <summary>Options of a table being built.</summary>
    public sealed class TableOptions
    {
        public Compression Compression { get; set; }
        /// <summary>Compression level (0 = default).</summary>
        public int Level { get; set; }
        /// <summary>Train and store a compression dictionary for the table.</summary>
        public bool Dictionary { get; set; }
        /// <summary>A hash index, which finds a key's row in one probe instead of
        /// a tree descent (about 11 bytes a row): null (the default) builds one
        /// unless the table is compressed (it would undo much of what compression
        /// saves) or its keys are consecutive integers; true always; false never.
        /// <see cref="TableInfo.Hashed"/> says whether a table has one.</summary>
        public bool? Hash { get; set; }
        /// <summary>The name of the values' encoding, recorded in the file
        /// ("json", "msgpack", "raw" or a name of your own; null records none):
        /// readers see it as <see cref="Table.Codec"/> (Python and the CLI decode
        /// values with it).</summary>
        public string Codec { get; set; }

        // drydb_builder_table's flags
        internal static uint Flags(TableOptions o)
        {
            if (o == null) return 0;
            uint f = o.Dictionary ? Native.Dictionary : 0u;
            if (o.Hash == true) f |= Native.HashOn;
            else if (o.Hash == false) f |= Native.NoHash;
            return f;
        }
    }

    /// <summary>Builds a database file (or image). Add tables and their rows in
    /// any order, indexes with their entries, then <see cref="Build"/>. The file
    /// is written to a temporary name and renamed. A builder builds once and
    /// belongs to one thread at a time.</summary>
    public sealed unsafe class DatabaseBuilder : IDisposable
    {
        internal readonly BuilderHandle Handle;
        readonly List<TableBuilder> tables = new List<TableBuilder>();
        bool built;

        // The database a merge builder reads (null otherwise).
        readonly Database baseDb;

        public DatabaseBuilder() : this(null) { }

        public DatabaseBuilder(BuilderOptions options) : this(options, null) { }

        /// <summary>A builder seeded from <paramref name="baseDb"/> (rebuild by
        /// merge): it writes the base's rows with the changes given since applied,
        /// rewriting only the pages changes fall into. Every table and index of the
        /// base is in it, and its metadata (SetMeta adds or replaces). Get a base
        /// table with <see cref="MergeTable"/>: Append upserts (insert or replace),
        /// <see cref="TableBuilder.Delete(byte[])"/> deletes; a base index with
        /// <see cref="TableBuilder.MergeIndex"/> (its delegate, if given, runs on
        /// the appended rows; entries of replaced and deleted rows are dropped). A
        /// key is changed once per merge: appended twice fails the build with
        /// DryDBException Status.Duplicate, appended and deleted with Status.Invalid.
        /// PageSize 0 keeps the base's. The base must stay open until the build
        /// ends: disposed earlier, the builder's calls throw ObjectDisposedException.</summary>
        public static DatabaseBuilder Merge(Database baseDb, BuilderOptions options = null)
        {
            if (baseDb == null) throw new ArgumentNullException("baseDb");
            return new DatabaseBuilder(options, baseDb);
        }

        DatabaseBuilder(BuilderOptions options, Database baseDb)
        {
            int ps = options == null ? 0 : options.PageSize;
            long mb = options == null ? 0 : options.MemoryBudget;
            if (ps < 0) throw new ArgumentException("PageSize must be >= 0", "options");
            if (mb < 0) throw new ArgumentException("MemoryBudget must be >= 0", "options");
            Native.EnsureLoaded();
            Handle = new BuilderHandle();
            IntPtr b;
            int rc;
            if (baseDb == null) rc = Native.drydb_builder_new((uint)ps, mb, &b);
            else
            {
                try { rc = drydb_builder_new_merge(baseDb.Enter(), (uint)ps, mb, &b); }
                finally { baseDb.Leave(); }
            }
            this.baseDb = baseDb;
            if (rc != Native.OK)
            {
                var e = Native.Error(rc);
                if (rc == Native.INVALID) throw new ArgumentException(e.Message, "options", e);
                throw e;
            }
            Handle.Set(b);
            string format = options == null ? null : options.Format;
            if (format != null && format != FileFormat.Native) FileFormat.Set(Handle, format);
        }

        int disposed;

        internal IntPtr Enter(ref bool added)
        {
            if (Volatile.Read(ref disposed) != 0) throw new ObjectDisposedException("DatabaseBuilder");
            Handle.DangerousAddRef(ref added);
            return Handle.Raw;
        }
        internal void Exit(bool added) { if (added) Handle.DangerousRelease(); }

        /// <summary>Frees the builder, its table and index builders and temporary files.</summary>
        public void Dispose()
        {
            if (Interlocked.Exchange(ref disposed, 1) == 0) Handle.Dispose();
        }

        /// <summary>Stores a metadata pair (Database.TryGetMeta reads it back).</summary>
        public void SetMeta(byte[] key, byte[] value)
        {
            if (key == null) throw new ArgumentNullException("key");
            if (value == null) throw new ArgumentNullException("value");
            bool added = false;
            try
            {
                IntPtr b = Enter(ref added);
                int rc;
                fixed (byte* k = key) fixed (byte* v = value)
                    rc = Native.drydb_builder_set_meta(b, k, (UIntPtr)key.Length, v, (UIntPtr)value.Length);
                Native.Check(rc);
            }
            finally { Exit(added); }
        }
        public void SetMeta(string key, string value) { SetMeta(Keys.String(key), Keys.String(value)); }

        /// <summary>Adds a table whose keys have the given encoding (not Composite:
        /// use the overload with parts).</summary>
        public TableBuilder CreateTable(string name, KeyKind encoding, TableOptions options = null)
        {
            if (encoding == KeyKind.Composite) throw new ArgumentException("composite tables need their parts: CreateTable(name, parts, options)", "encoding");
            return Create(name, encoding, null, options);
        }

        /// <summary>Adds a table with composite keys made of <paramref name="parts"/>.</summary>
        public TableBuilder CreateTable(string name, KeyKind[] parts, TableOptions options = null)
        {
            CheckParts(parts);
            return Create(name, KeyKind.Composite, parts, options);
        }

        internal static void CheckParts(KeyKind[] parts)
        {
            if (parts == null) throw new ArgumentNullException("parts");
            if (parts.Length == 0 || parts.Length > Native.MaxParts) throw new ArgumentException("a composite key has 1 to 16 parts", "parts");
            foreach (var p in parts)
                if (p < KeyKind.Bytes || p >= KeyKind.Composite) throw new ArgumentException("bad composite part " + p, "parts");
        }

        TableBuilder Create(string name, KeyKind kind, KeyKind[] parts, TableOptions o)
        {
            if (kind < KeyKind.Bytes || kind > KeyKind.Composite) throw new ArgumentException("bad key kind " + kind, "encoding");
            var cname = Native.CString(name, "name");
            if (o != null && (o.Compression < Compression.None || o.Compression > Compression.S2)) throw new ArgumentException("bad compression", "options");
            byte* pp = stackalloc byte[Native.MaxParts];
            int np = parts == null ? 0 : parts.Length;
            for (int i = 0; i < np; i++) pp[i] = (byte)parts[i];
            bool added = false;
            try
            {
                IntPtr b = Enter(ref added);
                IntPtr tb;
                int rc;
                fixed (byte* n = cname)
                    rc = Native.drydb_builder_table(b, n, (int)kind, np == 0 ? null : pp, (UIntPtr)np,
                        o == null ? 0 : (int)o.Compression, o == null ? 0 : o.Level, TableOptions.Flags(o), &tb);
                Native.Check(rc);
                if (o != null && !string.IsNullOrEmpty(o.Codec))
                {
                    var cc = Native.CString(o.Codec, "options");
                    fixed (byte* c = cc) Native.Check(Native.drydb_builder_table_codec(tb, c));
                }
                var t = new TableBuilder(this, name, kind, tb) { Parts = parts ?? new KeyKind[0] };
                tables.Add(t);
                return t;
            }
            finally { Exit(added); }
        }

        /// <summary>The builder of the base's table <paramref name="name"/> (a
        /// builder from <see cref="Merge"/>), with the base's key kind.</summary>
        public TableBuilder MergeTable(string name)
        {
            if (baseDb == null) throw new InvalidOperationException("MergeTable needs a builder made by DatabaseBuilder.Merge");
            var bt = baseDb.GetTable(name);
            var cname = Native.CString(name, "name");
            bool added = false;
            try
            {
                IntPtr b = Enter(ref added);
                IntPtr tb;
                int rc;
                fixed (byte* n = cname) rc = drydb_builder_merge_table(b, n, &tb);
                Native.Check(rc);
                var t = new TableBuilder(this, name, bt.KeyKind, tb, bt) { Parts = bt.Parts };
                tables.Add(t);
                return t;
            }
            finally { Exit(added); }
        }

        // The merge calls (drydb.h), declared here rather than in Native.cs.
        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb_builder_new_merge(IntPtr db, uint page_size, long memory_budget, IntPtr* b);
        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb_builder_merge_table(IntPtr b, byte* name, IntPtr* tb);
        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_merge_index(IntPtr tb, byte* name, IntPtr* ib);
        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_delete(IntPtr tb, byte* key, UIntPtr klen);

        /// <summary>Writes the database to <paramref name="path"/> (temporary name,
        /// sync, rename). Afterwards the builder is spent: Dispose it.</summary>
        public void Build(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            if (path.Length == 0) throw new ArgumentException("empty path", "path");
            var p = Native.CString(path, "path");
            bool added = false;
            try
            {
                IntPtr b = Enter(ref added);
                int rc;
                fixed (byte* pp = p) rc = Native.drydb_builder_build_file(b, pp);
                built = true;
                Native.Check(rc);
            }
            finally { Exit(added); }
        }

        /// <summary>Builds the database image in memory (open it with Database.OpenMemory).</summary>
        public byte[] BuildToMemory()
        {
            bool added = false;
            try
            {
                IntPtr b = Enter(ref added);
                byte* data; UIntPtr len;
                int rc = Native.drydb_builder_build_memory(b, &data, &len);
                built = true;
                Native.Check(rc);
                try { return Native.Copy(data, len); }
                finally { Native.drydb_free((IntPtr)data); }
            }
            finally { Exit(added); }
        }

        public bool IsBuilt { get { return built; } }
    }

    /// <summary>A table being built. Rows may be appended in any key order.</summary>
    public sealed unsafe class TableBuilder
    {
        readonly DatabaseBuilder owner;
        readonly IntPtr tb;
        readonly List<IndexBuilder> computed = new List<IndexBuilder>();
        long rows;

        public string Name { get; private set; }
        public KeyKind KeyKind { get; private set; }
        internal IReadOnlyList<KeyKind> Parts = new KeyKind[0];
        public DatabaseBuilder Builder { get { return owner; } }
        /// <summary>Rows appended so far through this object.</summary>
        public long RowsAppended { get { return rows; } }

        readonly Table baseTable; // the base's table, for a table of a merge

        internal TableBuilder(DatabaseBuilder owner, string name, KeyKind kind, IntPtr tb, Table baseTable = null)
        {
            this.owner = owner; Name = name; KeyKind = kind; this.tb = tb; this.baseTable = baseTable;
        }

        /// <summary>Deletes the row of <paramref name="key"/> (a table of a
        /// <see cref="DatabaseBuilder.Merge"/> builder; a key the base lacks is
        /// ignored).</summary>
        public void Delete(byte[] key)
        {
            if (key == null) throw new ArgumentNullException("key");
            bool added = false;
            try
            {
                owner.Enter(ref added);
                fixed (byte* k = key) Native.Check(DatabaseBuilder.drydb_builder_delete(tb, k, (UIntPtr)key.Length));
            }
            finally { owner.Exit(added); }
        }
        /// <summary>Any key type (<see cref="DryDB.Key"/>), encoded for this table.</summary>
        public void Delete(Key key) { Delete(Enc(key)); }

        internal byte[] Enc(Key key) { return key.Encode(KeyKind, Parts, "table '" + Name + "'"); }

        /// <summary>The builder of the base's index <paramref name="name"/> (a table
        /// from <see cref="DatabaseBuilder.MergeTable"/>). With
        /// <paramref name="indexKey"/>, it computes the entries of the rows
        /// appended from now on (as CreateIndex's delegate); without, give them
        /// with IndexBuilder.Add.</summary>
        public IndexBuilder MergeIndex(string name, Func<byte[], byte[], byte[]> indexKey = null)
        {
            if (baseTable == null) throw new InvalidOperationException("MergeIndex needs a table from DatabaseBuilder.MergeTable");
            if (indexKey != null && rows > 0) throw new InvalidOperationException("create computed indexes before appending rows to table '" + Name + "'");
            var kind = baseTable.Index(name).KeyKind;
            var cname = Native.CString(name, "name");
            bool added = false;
            try
            {
                owner.Enter(ref added);
                IntPtr ib; int rc;
                fixed (byte* n = cname) rc = DatabaseBuilder.drydb_builder_merge_index(tb, n, &ib);
                Native.Check(rc);
                return Register(new IndexBuilder(owner, name, kind, ib, indexKey) { Parts = baseTable.Index(name).Parts });
            }
            finally { owner.Exit(added); }
        }

        IndexBuilder Register(IndexBuilder ix)
        {
            if (ix.Computed) computed.Add(ix);
            return ix;
        }

        void Kind(KeyKind want) { if (KeyKind != want) Table.CheckKind(KeyKind, want, "table '" + Name + "'"); }

        /// <summary>Hot path: appends a row given as pointers (key and value are copied).</summary>
        public void Append(byte* key, int keyLength, byte* value, int valueLength)
        {
            if (keyLength < 0 || (key == null && keyLength != 0)) throw new ArgumentException("bad key pointer/length", "keyLength");
            if (valueLength < 0 || (value == null && valueLength != 0)) throw new ArgumentException("bad value pointer/length", "valueLength");
            if (computed.Count > 0)
            {
                // The index delegates need managed arrays.
                Append(Copy(key, keyLength), Copy(value, valueLength));
                return;
            }
            bool added = false;
            try
            {
                owner.Enter(ref added);
                Native.Check(Native.drydb_builder_append(tb, key, (UIntPtr)keyLength, value, (UIntPtr)valueLength));
                rows++;
            }
            finally { owner.Exit(added); }
        }

#if NETCOREAPP || NETSTANDARD2_1
        /// <summary>Appends a row from spans (key and value are copied).</summary>
        public void Append(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            fixed (byte* k = key) fixed (byte* v = value) Append(k, key.Length, v, value.Length);
        }
#endif

        static byte[] Copy(byte* p, int n)
        {
            var r = new byte[n];
            if (n > 0) Marshal.Copy((IntPtr)p, r, 0, n);
            return r;
        }

        /// <summary>Appends a row (key and value are copied). With computed
        /// indexes the row and its entries are added together or not at all: every
        /// index delegate runs first, and one that throws adds nothing.</summary>
        public void Append(byte[] key, byte[] value)
        {
            if (key == null) throw new ArgumentNullException("key");
            if (value == null) throw new ArgumentNullException("value");
            bool added = false;
            try
            {
                owner.Enter(ref added);
                if (computed.Count > 0) { AppendComputed(key, value); return; }
                fixed (byte* k = key) fixed (byte* v = value)
                    Native.Check(Native.drydb_builder_append(tb, k, (UIntPtr)key.Length, v, (UIntPtr)value.Length));
                rows++;
            }
            finally { owner.Exit(added); }
        }

        // A row and its computed index entries in one library call, all or
        // nothing (drydb__builder_append_row); the caller has entered the builder.
        void AppendComputed(byte[] key, byte[] value)
        {
            int n = 0, total = 0;
            var iks = new byte[computed.Count][];
            var ibs = new IntPtr[computed.Count];
            foreach (var ix in computed)
            {
                var ik = ix.Compute(key, value);
                if (ik == null) continue;
                iks[n] = ik; ibs[n] = ix.Raw; total += ik.Length; n++;
            }
            var all = new byte[total];
            var lens = new UIntPtr[n];
            for (int i = 0, o = 0; i < n; o += iks[i].Length, i++)
            {
                Buffer.BlockCopy(iks[i], 0, all, o, iks[i].Length);
                lens[i] = (UIntPtr)iks[i].Length;
            }
            fixed (byte* k = key) fixed (byte* v = value) fixed (IntPtr* ibp = ibs) fixed (byte* ikp = all) fixed (UIntPtr* lp = lens)
                Native.Check(drydb__builder_append_row(tb, k, (UIntPtr)key.Length, v, (UIntPtr)value.Length, (UIntPtr)n, ibp, ikp, lp));
            rows++;
        }

        // Not in drydb.h: the library's entry point for bindings that compute
        // index keys per row (capi/builder.go).
        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb__builder_append_row(IntPtr tb, byte* key, UIntPtr klen, byte* val, UIntPtr vlen,
            UIntPtr n, IntPtr* ibs, byte* ikeys, UIntPtr* iklens);
        public void Append(long key, byte[] value) { Kind(KeyKind.Int64); Append(Keys.Int64(key), value); }
        public void Append(ulong key, byte[] value) { Kind(KeyKind.UInt64); Append(Keys.UInt64(key), value); }
        /// <summary>Any key type (<see cref="DryDB.Key"/>: double, string, Guid, a
        /// tuple...), encoded for this table.</summary>
        public void Append(Key key, byte[] value) { Append(Enc(key), value); }

        /// <summary>Appends many rows, a batch of up to 1024 rows per crossing.</summary>
        public void AppendMany(IEnumerable<KeyValuePair<byte[], byte[]>> rows)
        {
            if (rows == null) throw new ArgumentNullException("rows");
            var batch = new List<KeyValuePair<byte[], byte[]>>(1024);
            foreach (var kv in rows)
            {
                if (kv.Key == null || kv.Value == null) throw new ArgumentException("a row with a null key or value", "rows");
                batch.Add(kv);
                if (batch.Count == 1024) { Flush(batch); batch.Clear(); }
            }
            if (batch.Count > 0) Flush(batch);
        }

        public void AppendMany(IEnumerable<KeyValuePair<long, byte[]>> rows)
        {
            if (rows == null) throw new ArgumentNullException("rows");
            Kind(KeyKind.Int64);
            AppendMany(Enc(rows));
        }
        static IEnumerable<KeyValuePair<byte[], byte[]>> Enc(IEnumerable<KeyValuePair<long, byte[]>> rows)
        {
            foreach (var kv in rows) yield return new KeyValuePair<byte[], byte[]>(Keys.Int64(kv.Key), kv.Value);
        }

        void Flush(List<KeyValuePair<byte[], byte[]>> batch)
        {
            if (computed.Count > 0)
            {
                // row by row: each with its entries, all or nothing
                bool entered = false;
                try
                {
                    owner.Enter(ref entered);
                    foreach (var kv in batch) AppendComputed(kv.Key, kv.Value);
                }
                finally { owner.Exit(entered); }
                return;
            }
            int n = batch.Count, kt = 0, vt = 0;
            foreach (var kv in batch) { kt += kv.Key.Length; vt += kv.Value.Length; }
            var ks = new byte[kt]; var vs = new byte[vt];
            var kl = new UIntPtr[n]; var vl = new UIntPtr[n];
            int ko = 0, vo = 0;
            for (int i = 0; i < n; i++)
            {
                var kv = batch[i];
                Buffer.BlockCopy(kv.Key, 0, ks, ko, kv.Key.Length); ko += kv.Key.Length; kl[i] = (UIntPtr)kv.Key.Length;
                Buffer.BlockCopy(kv.Value, 0, vs, vo, kv.Value.Length); vo += kv.Value.Length; vl[i] = (UIntPtr)kv.Value.Length;
            }
            bool added = false;
            try
            {
                owner.Enter(ref added);
                int rc;
                fixed (byte* k = ks) fixed (byte* v = vs) fixed (UIntPtr* klp = kl) fixed (UIntPtr* vlp = vl)
                    rc = Native.drydb_builder_append_many(tb, (UIntPtr)n, k, klp, v, vlp);
                // On failure the rows before the failing one are in; the message
                // names the failing row by its number in the table.
                Native.Check(rc);
                rows += n;
            }
            finally { owner.Exit(added); }
        }

        /// <summary>An index whose entries are given explicitly with IndexBuilder.Add.</summary>
        public IndexBuilder CreateIndex(string name, KeyKind encoding, bool unique = false)
        {
            if (encoding == KeyKind.Composite) throw new ArgumentException("composite index keys need their parts", "encoding");
            return NewIndex(name, encoding, null, unique, null);
        }
        public IndexBuilder CreateIndex(string name, KeyKind[] parts, bool unique = false)
        {
            DatabaseBuilder.CheckParts(parts);
            return NewIndex(name, KeyKind.Composite, parts, unique, null);
        }

        /// <summary>An index computed in C#: <paramref name="indexKey"/> is called
        /// with (key, value) of every row appended from now on and returns the
        /// encoded index key, or null for no entry. Create it before appending rows.</summary>
        public IndexBuilder CreateIndex(string name, KeyKind encoding, Func<byte[], byte[], byte[]> indexKey, bool unique = false)
        {
            if (indexKey == null) throw new ArgumentNullException("indexKey");
            if (encoding == KeyKind.Composite) throw new ArgumentException("composite index keys need their parts", "encoding");
            return NewIndex(name, encoding, null, unique, indexKey);
        }
        public IndexBuilder CreateIndex(string name, KeyKind[] parts, Func<byte[], byte[], byte[]> indexKey, bool unique = false)
        {
            if (indexKey == null) throw new ArgumentNullException("indexKey");
            DatabaseBuilder.CheckParts(parts);
            return NewIndex(name, KeyKind.Composite, parts, unique, indexKey);
        }

        IndexBuilder NewIndex(string name, KeyKind kind, KeyKind[] parts, bool unique, Func<byte[], byte[], byte[]> fn)
        {
            if (kind < KeyKind.Bytes || kind > KeyKind.Composite) throw new ArgumentException("bad key kind " + kind, "encoding");
            if (fn != null && rows > 0) throw new InvalidOperationException("create computed indexes before appending rows to table '" + Name + "'");
            var cname = Native.CString(name, "name");
            byte* pp = stackalloc byte[Native.MaxParts];
            int np = parts == null ? 0 : parts.Length;
            for (int i = 0; i < np; i++) pp[i] = (byte)parts[i];
            bool added = false;
            try
            {
                owner.Enter(ref added);
                IntPtr ib; int rc;
                fixed (byte* n = cname)
                    rc = Native.drydb_builder_index(tb, n, unique ? 1 : 0, (int)kind, np == 0 ? null : pp, (UIntPtr)np, &ib);
                Native.Check(rc);
                return Register(new IndexBuilder(owner, name, kind, ib, fn) { Parts = parts ?? new KeyKind[0] });
            }
            finally { owner.Exit(added); }
        }

        /// <summary>Appends values through a serializer delegate.</summary>
        public TypedTableBuilder<T> WithSerializer<T>(Func<T, byte[]> serialize) { return new TypedTableBuilder<T>(this, serialize); }
    }

    /// <summary>A secondary index being built: entries index key -> primary key.</summary>
    public sealed unsafe class IndexBuilder
    {
        readonly DatabaseBuilder owner;
        readonly IntPtr ib;
        readonly Func<byte[], byte[], byte[]> fn;

        public string Name { get; private set; }
        public KeyKind KeyKind { get; private set; }
        internal IReadOnlyList<KeyKind> Parts = new KeyKind[0];

        internal IndexBuilder(DatabaseBuilder owner, string name, KeyKind kind, IntPtr ib, Func<byte[], byte[], byte[]> fn)
        {
            this.owner = owner; Name = name; KeyKind = kind; this.ib = ib; this.fn = fn;
        }

        internal IntPtr Raw { get { return ib; } }
        internal bool Computed { get { return fn != null; } }

        /// <summary>The computed index key of a row, or null for no entry.</summary>
        internal byte[] Compute(byte[] key, byte[] value) { return fn(key, value); }

        /// <summary>Adds an entry: <paramref name="indexKey"/> (encoded) -> the
        /// primary key of a row of the table, appended before or after (the build
        /// refuses an entry whose row never comes).</summary>
        public void Add(byte[] indexKey, byte[] primaryKey)
        {
            if (indexKey == null) throw new ArgumentNullException("indexKey");
            if (primaryKey == null) throw new ArgumentNullException("primaryKey");
            bool added = false;
            try
            {
                owner.Enter(ref added);
                fixed (byte* k = indexKey) fixed (byte* p = primaryKey)
                    Native.Check(Native.drydb_builder_index_add(ib, k, (UIntPtr)indexKey.Length, p, (UIntPtr)primaryKey.Length));
            }
            finally { owner.Exit(added); }
        }
        /// <summary>An index key of any type (<see cref="DryDB.Key"/>), encoded for this index.</summary>
        public void Add(Key indexKey, byte[] primaryKey) { Add(indexKey.Encode(KeyKind, Parts, "index '" + Name + "'"), primaryKey); }

        /// <summary>Adds many entries (index key, primary key), 1024 per crossing.</summary>
        public void AddMany(IEnumerable<KeyValuePair<byte[], byte[]>> entries)
        {
            if (entries == null) throw new ArgumentNullException("entries");
            var batch = new List<KeyValuePair<byte[], byte[]>>(1024);
            foreach (var e in entries)
            {
                if (e.Key == null || e.Value == null) throw new ArgumentException("an entry with a null key", "entries");
                batch.Add(e);
                if (batch.Count == 1024) { Flush(batch); batch.Clear(); }
            }
            if (batch.Count > 0) Flush(batch);
        }

        void Flush(List<KeyValuePair<byte[], byte[]>> batch)
        {
            int n = batch.Count, kt = 0, pt = 0;
            foreach (var e in batch) { kt += e.Key.Length; pt += e.Value.Length; }
            var ks = new byte[kt]; var ps = new byte[pt];
            var kl = new UIntPtr[n]; var pl = new UIntPtr[n];
            int ko = 0, po = 0;
            for (int i = 0; i < n; i++)
            {
                var e = batch[i];
                Buffer.BlockCopy(e.Key, 0, ks, ko, e.Key.Length); ko += e.Key.Length; kl[i] = (UIntPtr)e.Key.Length;
                Buffer.BlockCopy(e.Value, 0, ps, po, e.Value.Length); po += e.Value.Length; pl[i] = (UIntPtr)e.Value.Length;
            }
            bool added = false;
            try
            {
                owner.Enter(ref added);
                fixed (byte* k = ks) fixed (byte* p = ps) fixed (UIntPtr* klp = kl) fixed (UIntPtr* plp = pl)
                    Native.Check(Native.drydb_builder_index_add_many(ib, (UIntPtr)n, k, klp, p, plp));
            }
            finally { owner.Exit(added); }
        }
    }
}
