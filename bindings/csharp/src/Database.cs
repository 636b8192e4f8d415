// Database.cs - an open database (SafeHandle over drydb_db*).
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;

namespace DryDB
{
    /// <summary>Owns a drydb_db handle. Open cursors hold a reference
    /// (DangerousAddRef), so the native close runs when the database is disposed,
    /// no call is in flight (see Database.Enter) and the last cursor is gone.</summary>
    internal sealed class DatabaseHandle : SafeHandle
    {
        internal IntPtr Memory; // image copy for Database.OpenMemory, freed after close

        internal DatabaseHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        internal IntPtr Raw { get { return handle; } }
        internal void Set(IntPtr h) { SetHandle(h); }

        protected override bool ReleaseHandle()
        {
            int rc = Native.drydb_close(handle);
            if (Memory != IntPtr.Zero) { Marshal.FreeHGlobal(Memory); Memory = IntPtr.Zero; }
            return rc == Native.OK;
        }
    }

    /// <summary>A read-only drydb database, memory-mapped. Thread-safe: tables,
    /// indexes and the database may be used from any number of threads.
    /// Dispose closes it; later calls throw <see cref="ObjectDisposedException"/>.</summary>
    public sealed unsafe class Database : IDisposable
    {
        internal readonly DatabaseHandle Handle;
        readonly Dictionary<string, Table> tables = new Dictionary<string, Table>();
        System.Collections.ObjectModel.ReadOnlyCollection<string> names;

        readonly IntPtr raw; // the native handle: an opaque value the library validates

        Database(DatabaseHandle h) { Handle = h; raw = h.Raw; }

        public static Database Open(string path) { return Open(path, null); }

        public static Database Open(string path, DatabaseOptions options)
        {
            if (path == null) throw new ArgumentNullException("path");
            if (path.Length == 0) throw new ArgumentException("empty path", "path");
            long cache = options == null ? 0 : options.CacheBytes;
            if (cache < 0) throw new ArgumentException("CacheBytes must be >= 0", "options");
            Native.EnsureLoaded();
            var p = Native.CString(path, "path");
            var h = new DatabaseHandle();
            IntPtr db = IntPtr.Zero;
            int rc;
            // Allocate the SafeHandle first, then set it with no allocation in between.
            fixed (byte* pp = p) rc = Native.drydb_open(pp, Flags(options), cache, &db);
            if (rc != Native.OK) throw Native.Error(rc);
            h.Set(db);
            return new Database(h);
        }

        /// <summary>Opens a database image held in memory (e.g. from
        /// <see cref="DatabaseBuilder.BuildToMemory"/>). The image is copied to
        /// unmanaged memory that lives until the database is closed.</summary>
        public static Database OpenMemory(byte[] image, DatabaseOptions options = null)
        {
            if (image == null) throw new ArgumentNullException("image");
            long cache = options == null ? 0 : options.CacheBytes;
            if (cache < 0) throw new ArgumentException("CacheBytes must be >= 0", "options");
            Native.EnsureLoaded();
            var h = new DatabaseHandle();
            IntPtr mem = Marshal.AllocHGlobal(Math.Max(1, image.Length));
            Marshal.Copy(image, 0, mem, image.Length);
            IntPtr db = IntPtr.Zero;
            int rc = Native.drydb_open_memory(mem, (UIntPtr)image.Length, Flags(options), cache, &db);
            if (rc != Native.OK)
            {
                var e = Native.Error(rc);
                Marshal.FreeHGlobal(mem);
                throw e;
            }
            h.Memory = mem;
            h.Set(db);
            return new Database(h);
        }

        static uint Flags(DatabaseOptions o) { return o != null && o.Verify ? 1u : 0u; }

        // Our own flag: Mono's SafeHandle reports IsClosed only once the last
        // reference is gone, and an open Cursor holds one.
        int disposed;
        // Calls in flight (Enter/Leave) and whether Handle.Dispose has run.
        int calls, released;

        /// <summary>True once <see cref="Dispose"/> has been called.</summary>
        public bool IsDisposed { get { return Volatile.Read(ref disposed) != 0; } }

        /// <summary>Closes the database. Calls in progress on other threads finish
        /// first; the file is unmapped once no call and no open Cursor uses it.</summary>
        public void Dispose()
        {
            // Interlocked.Exchange is a full fence, as is the Interlocked.Increment in
            // Enter: either Enter sees the flag, or Dispose sees the call in flight
            // (whose Leave then releases the handle).
            if (Interlocked.Exchange(ref disposed, 1) == 0 && Volatile.Read(ref calls) == 0) ReleaseHandle();
        }

        void ReleaseHandle()
        {
            if (Interlocked.Exchange(ref released, 1) == 0) Handle.Dispose();
        }

        // The per-call guard of every read. Cheaper than SafeHandle's
        // DangerousAddRef/DangerousRelease (one interlocked add each way instead
        // of compare-exchange loops: about 4 ns against 16 ns on Mono 6.8), and
        // as safe: a Dispose racing with the call leaves the native close to the
        // last Leave, so memory returned by the library stays mapped until the
        // caller has copied it. Always pair with Leave (try/finally).
        internal IntPtr Enter()
        {
            Interlocked.Increment(ref calls);
            if (Volatile.Read(ref disposed) != 0) { Leave(); throw new ObjectDisposedException("Database"); }
            return raw;
        }

        internal void Leave()
        {
            if (Interlocked.Decrement(ref calls) == 0 && Volatile.Read(ref disposed) != 0) ReleaseHandle();
        }

        // `using (db.Call()) { ... }`: Enter, and Leave when the block ends,
        // for the calls that are not hot paths (those write out the try/finally).
        // A struct: no allocation, and `using` calls Dispose without boxing.
        internal CallRef Call() { Enter(); return new CallRef(this); }

        internal struct CallRef : IDisposable
        {
            readonly Database db;
            internal CallRef(Database db) { this.db = db; }
            public void Dispose() { db.Leave(); }
        }

        // A reference for an open Cursor: on the SafeHandle, released when the
        // cursor is disposed or finalized (the cursor may outlive Dispose).
        internal void AddCursorRef(ref bool added)
        {
            ThrowIfDisposed();
            Handle.DangerousAddRef(ref added); // ObjectDisposedException once released
        }

        /// <summary>Names of the tables, in file order.</summary>
        public IReadOnlyList<string> Tables
        {
            get
            {
                var n = names;
                if (n != null) { ThrowIfDisposed(); return n; }
                using (Call())
                {
                    IntPtr db = raw;
                    UIntPtr count;
                    Native.Check(Native.drydb_table_count(db, &count));
                    var r = new string[(int)(ulong)count];
                    for (int i = 0; i < r.Length; i++)
                    {
                        byte* name;
                        Native.Check(Native.drydb_table_name(db, (UIntPtr)i, &name));
                        r[i] = Native.FromCString((IntPtr)name);
                    }
                    names = Array.AsReadOnly(r);
                    return names;
                }
            }
        }

        /// <summary>The table called <paramref name="name"/>; DryDBException
        /// (Status.NoTable) if there is none. The same object every time.</summary>
        public Table GetTable(string name)
        {
            if (name == null) throw new ArgumentNullException("name");
            lock (tables)
            {
                Table t;
                if (tables.TryGetValue(name, out t)) { ThrowIfDisposed(); return t; }
            }
            var cname = Native.CString(name, "name");
            using (Call())
            {
                IntPtr db = raw;
                IntPtr th;
                fixed (byte* p = cname) Native.Check(Native.drydb_table_open(db, p, &th));
                NativeTableInfo ni;
                Native.Check(Native.drydb_table_info(th, &ni));
                var t = new Table(this, name, th, ni);
                lock (tables)
                {
                    Table old;
                    if (tables.TryGetValue(name, out old)) return old;
                    tables[name] = t;
                }
                return t;
            }
        }

        /// <summary>Whether a table of that name exists.</summary>
        public bool HasTable(string name)
        {
            if (name == null) throw new ArgumentNullException("name");
            return ((IList<string>)Tables).Contains(name);
        }

        public DatabaseInfo Info
        {
            get
            {
                using (Call())
                {
                    IntPtr db = raw;
                    NativeDbInfo ni;
                    Native.Check(Native.drydb_info(db, &ni));
                    var id = new byte[16];
                    for (int i = 0; i < 16; i++) id[i] = ni.build_id[i];
                    return new DatabaseInfo
                    {
                        FormatVersion = (int)ni.format_version,
                        PageSize = (int)ni.page_size,
                        FileSize = ni.file_size,
                        CreatedUtc = new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddTicks(ni.created_unix_ns / 100),
                        BuildId = id,
                        TableCount = (long)ni.table_count,
                    };
                }
            }
        }

        public CacheStats CacheStats
        {
            get
            {
                using (Call())
                {
                    IntPtr db = raw;
                    NativeCacheStats s;
                    Native.Check(Native.drydb_cache_stats(db, &s));
                    return new CacheStats { Hits = (long)s.hits, Misses = (long)s.misses, Evictions = (long)s.evictions, Bytes = (long)s.bytes };
                }
            }
        }

        /// <summary>Checks every page checksum and structure; throws
        /// DryDBException (Status.Corrupt) if one fails.</summary>
        public void Verify()
        {
            using (Call()) Native.Check(Native.drydb_verify(raw));
        }

        /// <summary>User metadata stored with DatabaseBuilder.SetMeta; false if absent.</summary>
        public bool TryGetMeta(byte[] key, out byte[] value)
        {
            if (key == null) throw new ArgumentNullException("key");
            using (Call())
            {
                IntPtr db = raw;
                var cb = CopyBuffers.Current;
                cb.Want(true, false, false);
                int rc;
                fixed (byte* k = key)
                    while ((rc = Native.drydb__copy_meta(db, k, (UIntPtr)key.Length, cb.Cols)) == Native.FULL) cb.GrowFor(0);
                if (rc == Native.OK) { value = Native.Copy(cb.Buf(0), cb.Cols[0].lens[0]); cb.Trim(); return true; }
                value = null;
                if (rc == Native.NOTFOUND) return false;
                throw Native.Error(rc);
            }
        }

        public string GetMeta(string key)
        {
            byte[] v;
            return TryGetMeta(Keys.String(key), out v) ? System.Text.Encoding.UTF8.GetString(v) : null;
        }

        internal void ThrowIfDisposed()
        {
            if (Volatile.Read(ref disposed) != 0) throw new ObjectDisposedException("Database");
        }

        // ------------------------------------------------------------ live data

        /// <summary>Follows the path: if the file now at it is another file (a
        /// builder renamed a new version over it), opens it and makes it the
        /// current version; returns true then, false if the file is the one
        /// already open. Tables and indexes stay valid and answer from the new
        /// version from their next call on (their KeyKind stays the one seen when
        /// they were opened); one the new version lacks throws DryDBException
        /// (Status.NoTable / Status.NoIndex) until a later version has it again.
        /// Open cursors read the version they were opened on until disposed;
        /// Range enumerations read 64-256 rows per call, so a long one continues
        /// in the new version from its next batch (use a Cursor to read one
        /// version throughout). Raw pointers from the pointer overloads follow the
        /// C header's rule: once a refresh replaced their version, valid until the
        /// calling thread's next call into the library. A missing, truncated or
        /// corrupt file throws (Status.IO, Status.Corrupt) and the database keeps
        /// the version it had; a database from OpenMemory cannot refresh
        /// (Status.Invalid).</summary>
        public bool Refresh()
        {
            using (Call())
            {
                IntPtr db = raw;
                int changed;
                Native.Check(drydb_refresh(db, &changed));
                if (changed != 0) names = null;
                return changed != 0;
            }
        }

        /// <summary>Checks the path automatically, as Refresh does, at most every
        /// <paramref name="ms"/> milliseconds, at the start of calls that enter the
        /// library's Go side (opening tables, compressed tables, cursors, ...); 0
        /// turns it off (the default). Tables lists follow explicit Refresh calls
        /// only.</summary>
        public void RefreshEvery(long ms)
        {
            using (Call()) Native.Check(drydb_refresh_every(raw, ms));
        }

        /// <summary>The current version: the file's build id (16 bytes, random per
        /// build) and how many refreshes replaced the file since open (0 at
        /// open).</summary>
        public DatabaseVersion Version
        {
            get
            {
                using (Call())
                {
                    IntPtr db = raw;
                    var id = new byte[16];
                    ulong seq;
                    fixed (byte* p = id) Native.Check(drydb_db_version(db, p, &seq));
                    return new DatabaseVersion(id, (long)seq);
                }
            }
        }

        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb_refresh(IntPtr db, int* changed);
        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb_refresh_every(IntPtr db, long ms);
        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb_db_version(IntPtr db, byte* buildId, ulong* seq);

        // ------------------------------------------------------------ library-wide

        /// <summary>Version of the loaded libdrydb ("MAJOR.MINOR.PATCH").</summary>
        public static string LibraryVersion
        {
            get { return Native.FromCString(Native.drydb_version_string()); }
        }

        /// <summary>Soft limit on the Go heap of the library (bytes); returns the
        /// previous limit. A negative value only reads it.</summary>
        public static long SetMemoryLimit(long bytes)
        {
            long old;
            Native.Check(Native.drydb_set_memory_limit(bytes, &old));
            return old;
        }

        /// <summary>GC target percentage of the library's Go runtime; returns the
        /// previous one. Negative disables the collector.</summary>
        public static int SetGCPercent(int percent)
        {
            int old;
            Native.Check(Native.drydb_set_gc_percent(percent, &old));
            return old;
        }
    }

    /// <summary>Which version of a database file answered (Database.Version).</summary>
    public sealed class DatabaseVersion
    {
        /// <summary>The file's build id (16 bytes, random per build).</summary>
        public byte[] BuildId { get; private set; }
        /// <summary>Refreshes that replaced the file since the database was opened.</summary>
        public long Seq { get; private set; }
        internal DatabaseVersion(byte[] id, long seq) { BuildId = id; Seq = seq; }
    }
}
