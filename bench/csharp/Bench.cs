// Bench.cs - C# (Mono) peers of drydb's benchmark suite: the same shapes as bench/c.
//
// build: mcs -langversion:7.2 -unsafe -optimize+ -r:Mono.Data.Sqlite -r:System.Data Bench.cs
//        (bench/run adds -d:DRYDB -r:DryDB.dll when the drydb binding is there)
// usage: mono Bench.exe ROWS DATADIR [stores] [shapes]
// env:   BENCH_REPS (5), BENCH_BUILD_REPS (3), BENCH_TARGET_MS (25)
// Prints one JSON line per (store, shape) on stdout, "lang":"csharp".
//
// Adding a store = one more subclass of Store, registered in Program.Make.
// The drydb binding goes in DrydbStore below (namespace DryDB: Database.Open,
// db.GetTable("bench"), table.TryGet(long, out byte[]), GetMany, Count, cursor).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Security;
using System.Text;
using Mono.Data.Sqlite;

namespace DryDBBench
{
    // ---------------------------------------------------------------- store interface
    public abstract class Store
    {
        public abstract string Name { get; }
        public abstract string Config { get; }
        public virtual string Version() { return ""; }
        public virtual bool FileBacked { get { return true; } }   // open_get measured only with a file
        public virtual bool HasGetMany { get { return false; } }
        public virtual bool HasScan { get { return true; } }
        public virtual bool HasCount { get { return true; } }

        // n rows, keys 0..n-1 ascending, value(i) -> 13 bytes; durable when it returns.
        // Throw NotSupportedException to read a file built by bench/c instead.
        public abstract void Build(string path, int n, Func<long, byte[]> value);
        public abstract void Open(string path);
        public abstract void Close();
        public abstract bool TryGet(long key, out byte[] value);
        // keys[off..off+n) -> vals[0..n); returns how many were found
        public virtual int GetMany(long[] keys, int off, int n, byte[][] vals) { throw new NotSupportedException(); }
        // rows with lo <= key <= hi, each value materialized as byte[]; returns rows
        public virtual long Scan(long lo, long hi) { throw new NotSupportedException(); }
        public virtual long Count(long lo, long hi) { throw new NotSupportedException(); }

        // int64 -> 8 bytes big-endian with the sign bit flipped
        public static unsafe void Key(long k, byte* o)
        {
            ulong u = (ulong)k ^ 0x8000000000000000UL;
            for (int i = 7; i >= 0; i--) { o[i] = (byte)u; u >>= 8; }
        }
        public static byte[] KeyBytes(long k)
        {
            var b = new byte[8];
            unsafe { fixed (byte* p = b) Key(k, p); }
            return b;
        }
    }

    // ---------------------------------------------------------------- LMDB via DllImport
    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct MDB_val { public UIntPtr size; public byte* data; }

    [SuppressUnmanagedCodeSecurity]
    public static unsafe class Lmdb
    {
        const string L = "liblmdb.so.0";
        public const uint NOSUBDIR = 0x4000, RDONLY = 0x20000, APPEND = 0x20000;
        public const int NOTFOUND = -30798, NEXT = 8, SET_RANGE = 17;
        [DllImport(L)] public static extern IntPtr mdb_version(IntPtr a, IntPtr b, IntPtr c);
        [DllImport(L)] public static extern IntPtr mdb_strerror(int err);
        [DllImport(L)] public static extern int mdb_env_create(out IntPtr env);
        [DllImport(L)] public static extern int mdb_env_set_mapsize(IntPtr env, UIntPtr size);
        [DllImport(L)] public static extern int mdb_env_open(IntPtr env, string path, uint flags, int mode);
        [DllImport(L)] public static extern void mdb_env_close(IntPtr env);
        [DllImport(L)] public static extern int mdb_txn_begin(IntPtr env, IntPtr parent, uint flags, out IntPtr txn);
        [DllImport(L)] public static extern int mdb_txn_commit(IntPtr txn);
        [DllImport(L)] public static extern void mdb_txn_abort(IntPtr txn);
        [DllImport(L)] public static extern int mdb_dbi_open(IntPtr txn, IntPtr name, uint flags, out uint dbi);
        [DllImport(L)] public static extern int mdb_get(IntPtr txn, uint dbi, MDB_val* key, MDB_val* data);
        [DllImport(L)] public static extern int mdb_put(IntPtr txn, uint dbi, MDB_val* key, MDB_val* data, uint flags);
        [DllImport(L)] public static extern int mdb_cursor_open(IntPtr txn, uint dbi, out IntPtr cur);
        [DllImport(L)] public static extern void mdb_cursor_close(IntPtr cur);
        [DllImport(L)] public static extern int mdb_cursor_get(IntPtr cur, MDB_val* key, MDB_val* data, int op);
        public static void Check(int rc, string what)
        {
            if (rc != 0) throw new Exception(what + ": " + Marshal.PtrToStringAnsi(mdb_strerror(rc)));
        }
    }

    public unsafe sealed class LmdbStore : Store
    {
        IntPtr env, txn, cur; uint dbi;
        public override string Name { get { return "lmdb"; } }
        public override string Config { get { return "[DllImport(liblmdb.so.0)], blittable pointer args; MDB_RDONLY env, one long-lived read txn, reused cursor; values copied to byte[]; build MDB_APPEND"; } }
        public override string Version() { return Marshal.PtrToStringAnsi(Lmdb.mdb_version(IntPtr.Zero, IntPtr.Zero, IntPtr.Zero)); }

        public override void Build(string path, int n, Func<long, byte[]> value)
        {
            IntPtr e, t; uint d;
            Lmdb.Check(Lmdb.mdb_env_create(out e), "env_create");
            Lmdb.mdb_env_set_mapsize(e, new UIntPtr(64UL << 30));
            Lmdb.Check(Lmdb.mdb_env_open(e, path, Lmdb.NOSUBDIR, 420), "env_open");
            Lmdb.Check(Lmdb.mdb_txn_begin(e, IntPtr.Zero, 0, out t), "txn_begin");
            Lmdb.Check(Lmdb.mdb_dbi_open(t, IntPtr.Zero, 0, out d), "dbi_open");
            byte* kb = stackalloc byte[8];
            for (int i = 0; i < n; i++)
            {
                byte[] v = value(i);
                Key(i, kb);
                fixed (byte* vp = v)
                {
                    MDB_val k, dv;
                    k.size = new UIntPtr(8); k.data = kb;
                    dv.size = new UIntPtr((uint)v.Length); dv.data = vp;
                    Lmdb.Check(Lmdb.mdb_put(t, d, &k, &dv, Lmdb.APPEND), "put");
                }
            }
            Lmdb.Check(Lmdb.mdb_txn_commit(t), "commit");
            Lmdb.mdb_env_close(e);
        }

        public override void Open(string path)
        {
            Lmdb.Check(Lmdb.mdb_env_create(out env), "env_create");
            Lmdb.Check(Lmdb.mdb_env_open(env, path, Lmdb.NOSUBDIR | Lmdb.RDONLY, 420), "env_open");
            Lmdb.Check(Lmdb.mdb_txn_begin(env, IntPtr.Zero, Lmdb.RDONLY, out txn), "txn_begin");
            Lmdb.Check(Lmdb.mdb_dbi_open(txn, IntPtr.Zero, 0, out dbi), "dbi_open");
            Lmdb.Check(Lmdb.mdb_cursor_open(txn, dbi, out cur), "cursor_open");
        }

        public override void Close()
        {
            Lmdb.mdb_cursor_close(cur); Lmdb.mdb_txn_abort(txn); Lmdb.mdb_env_close(env);
        }

        static byte[] Copy(MDB_val v)
        {
            var b = new byte[(int)v.size];
            Marshal.Copy((IntPtr)v.data, b, 0, b.Length);
            return b;
        }

        public override bool TryGet(long key, out byte[] value)
        {
            byte* kb = stackalloc byte[8];
            Key(key, kb);
            MDB_val k, v;
            k.size = new UIntPtr(8); k.data = kb;
            int rc = Lmdb.mdb_get(txn, dbi, &k, &v);
            if (rc != 0) { value = null; if (rc != Lmdb.NOTFOUND) Lmdb.Check(rc, "get"); return false; }
            value = Copy(v);
            return true;
        }

        long Walk(long lo, long hi, bool values)
        {
            byte* kb = stackalloc byte[8]; byte* hb = stackalloc byte[8];
            Key(lo, kb); Key(hi, hb);
            MDB_val k, v;
            k.size = new UIntPtr(8); k.data = kb;
            long n = 0;
            for (int rc = Lmdb.mdb_cursor_get(cur, &k, &v, Lmdb.SET_RANGE); rc == 0; rc = Lmdb.mdb_cursor_get(cur, &k, &v, Lmdb.NEXT))
            {
                if (Cmp(k.data, (int)k.size, hb) > 0) break;
                if (values) Copy(v);
                n++;
            }
            return n;
        }

        static int Cmp(byte* a, int alen, byte* b)
        {
            int m = alen < 8 ? alen : 8;
            for (int i = 0; i < m; i++) if (a[i] != b[i]) return a[i] - b[i];
            return alen - 8;
        }

        public override long Scan(long lo, long hi) { return Walk(lo, hi, true); }
        public override long Count(long lo, long hi) { return Walk(lo, hi, false); }
    }

    // ---------------------------------------------------------------- Mono.Data.Sqlite
    public sealed class SqliteStore : Store
    {
        readonly bool tuned;
        SqliteConnection conn;
        SqliteCommand get, scan, count;
        SqliteParameter gk, slo, shi, clo, chi;
        public SqliteStore(bool tuned) { this.tuned = tuned; }
        public override string Name { get { return tuned ? "sqlite_tuned" : "sqlite"; } }
        public override string Config
        {
            get
            {
                return tuned
                    ? "Mono.Data.Sqlite, Read Only, PRAGMA locking_mode=EXCLUSIVE + mmap_size=1GiB, prepared commands reused (parameter values reassigned), SELECT CAST(v AS BLOB) (skips Mono.Data.Sqlite's per-query column type lookup: 10 us -> 2 us)"
                    : "Mono.Data.Sqlite as usually written: Read Only connection, a new SqliteCommand + AddWithValue per query";
            }
        }
        public override string Version() { return "Mono.Data.Sqlite, SQLite " + SqliteConnection.SQLiteVersion; }

        public override void Build(string p, int n, Func<long, byte[]> value)
        {
            using (var c = new SqliteConnection("Data Source=" + p))
            {
                c.Open();
                using (var cmd = new SqliteCommand("PRAGMA page_size=4096; CREATE TABLE bench(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID", c))
                    cmd.ExecuteNonQuery();
                using (var tx = c.BeginTransaction())
                using (var ins = new SqliteCommand("INSERT INTO bench(k,v) VALUES(@k,@v)", c, tx))
                {
                    var pk = ins.Parameters.Add("@k", System.Data.DbType.Binary);
                    var pv = ins.Parameters.Add("@v", System.Data.DbType.Binary);
                    ins.Prepare();
                    for (int i = 0; i < n; i++) { pk.Value = KeyBytes(i); pv.Value = value(i); ins.ExecuteNonQuery(); }
                    tx.Commit();
                }
            }
        }

        public override void Open(string p)
        {
            conn = new SqliteConnection("Data Source=" + p + ";Read Only=True");
            conn.Open();
            if (!tuned) return;
            using (var cmd = new SqliteCommand("PRAGMA locking_mode=EXCLUSIVE; PRAGMA mmap_size=1073741824", conn))
                cmd.ExecuteNonQuery();
            get = Prep("SELECT CAST(v AS BLOB) FROM bench WHERE k=@k", out gk, null, out shi);
        }

        SqliteCommand Prep(string sql, out SqliteParameter a, string bname, out SqliteParameter b)
        {
            var cmd = new SqliteCommand(sql, conn);
            a = cmd.Parameters.Add(sql.Contains("@lo") ? "@lo" : "@k", System.Data.DbType.Binary);
            b = bname == null ? null : cmd.Parameters.Add(bname, System.Data.DbType.Binary);
            cmd.Prepare();
            return cmd;
        }

        public override void Close()
        {
            foreach (var c in new[] { get, scan, count }) if (c != null) c.Dispose();
            get = scan = count = null;
            conn.Dispose();
        }

        public override bool TryGet(long key, out byte[] value)
        {
            object r;
            if (tuned)
            {
                gk.Value = KeyBytes(key);
                r = get.ExecuteScalar();
            }
            else
            {
                using (var cmd = new SqliteCommand("SELECT v FROM bench WHERE k=@k", conn))
                {
                    cmd.Parameters.AddWithValue("@k", KeyBytes(key));
                    r = cmd.ExecuteScalar();
                }
            }
            value = r as byte[];
            return value != null;
        }

        const string ScanSql = "SELECT v FROM bench WHERE k>=@lo AND k<=@hi ORDER BY k";
        const string ScanSqlCast = "SELECT CAST(v AS BLOB) FROM bench WHERE k>=@lo AND k<=@hi ORDER BY k";
        const string CountSql = "SELECT COUNT(*) FROM bench WHERE k>=@lo AND k<=@hi";

        public override long Scan(long lo, long hi)
        {
            long n = 0;
            if (tuned)
            {
                if (scan == null) scan = Prep(ScanSqlCast, out slo, "@hi", out shi);
                slo.Value = KeyBytes(lo); shi.Value = KeyBytes(hi);
                using (var r = scan.ExecuteReader()) while (r.Read()) { var v = (byte[])r[0]; n++; }
                return n;
            }
            using (var cmd = new SqliteCommand(ScanSql, conn))
            {
                cmd.Parameters.AddWithValue("@lo", KeyBytes(lo));
                cmd.Parameters.AddWithValue("@hi", KeyBytes(hi));
                using (var r = cmd.ExecuteReader()) while (r.Read()) { var v = (byte[])r[0]; n++; }
            }
            return n;
        }

        public override long Count(long lo, long hi)
        {
            if (tuned)
            {
                if (count == null) count = Prep(CountSql, out clo, "@hi", out chi);
                clo.Value = KeyBytes(lo); chi.Value = KeyBytes(hi);
                return (long)count.ExecuteScalar();
            }
            using (var cmd = new SqliteCommand(CountSql, conn))
            {
                cmd.Parameters.AddWithValue("@lo", KeyBytes(lo));
                cmd.Parameters.AddWithValue("@hi", KeyBytes(hi));
                return (long)cmd.ExecuteScalar();
            }
        }
    }

    // ---------------------------------------------------------------- floors (in RAM, no file)
    public sealed class ArrayStore : Store
    {
        static readonly Dictionary<string, ArrayStore> built = new Dictionary<string, ArrayStore>();
        long[] keys; byte[][] vals;
        public override string Name { get { return "array"; } }
        public override string Config { get { return "Array.BinarySearch over long[] + byte[][] values, in RAM (the floor)"; } }
        public override bool FileBacked { get { return false; } }
        public override void Build(string path, int n, Func<long, byte[]> value)
        {
            var s = new ArrayStore { keys = new long[n], vals = new byte[n][] };
            for (int i = 0; i < n; i++) { s.keys[i] = i; s.vals[i] = value(i); }
            built[path] = s;
        }
        public override void Open(string path) { var s = built[path]; keys = s.keys; vals = s.vals; }
        public override void Close() { }
        public override bool TryGet(long key, out byte[] value)
        {
            int i = Array.BinarySearch(keys, key);
            value = i >= 0 ? vals[i] : null;
            return i >= 0;
        }
        int Lower(long k) { int i = Array.BinarySearch(keys, k); return i >= 0 ? i : ~i; }
        public override long Scan(long lo, long hi)
        {
            long n = 0; int sum = 0;
            for (int i = Lower(lo); i < keys.Length && keys[i] <= hi; i++, n++) sum += vals[i].Length;
            return sum > 0 ? n : n;
        }
        public override long Count(long lo, long hi)
        {
            if (hi < lo) return 0;
            int u = hi == long.MaxValue ? keys.Length : Lower(hi + 1);
            return u - Lower(lo);
        }
    }

    public sealed class DictStore : Store
    {
        static readonly Dictionary<string, Dictionary<long, byte[]>> built = new Dictionary<string, Dictionary<long, byte[]>>();
        Dictionary<long, byte[]> d;
        public override string Name { get { return "dictionary"; } }
        public override string Config { get { return "Dictionary<long,byte[]>.TryGetValue, in RAM (point-get floor)"; } }
        public override bool FileBacked { get { return false; } }
        public override bool HasScan { get { return false; } }
        public override bool HasCount { get { return false; } }
        public override void Build(string path, int n, Func<long, byte[]> value)
        {
            var x = new Dictionary<long, byte[]>(n);
            for (int i = 0; i < n; i++) x[i] = value(i);
            built[path] = x;
        }
        public override void Open(string path) { d = built[path]; }
        public override void Close() { }
        public override bool TryGet(long key, out byte[] value) { return d.TryGetValue(key, out value); }
    }

#if DRYDB
    // ---------------------------------------------------------------- drydb (the binding)
    // Compiled in by bench/run with -d:DRYDB -r:DryDB.dll when the binding exists.
    // Adjust the calls here to the binding's final API; nothing else changes.
    public sealed unsafe class DrydbStore : Store
    {
        const int ScanBatch = 256;
        DryDB.Database db; DryDB.Table t;
        public override string Name { get { return "drydb"; } }
        public override string Config { get { return "DryDB binding: table 'bench', long keys, uncompressed, 4 KiB pages; TryGet(long, out byte[]) copies; GetMany(long[], idx, byte[][], idx, n) copies into the caller's array (one crossing per 256 keys); scan: Table.ReadRange(lo, hi, up to 256 rows per call) zero-copy (pointer + length, last byte of each value read), no cursor, continues after the last key while batches come back full; Count(lo, hi)"; } }
        public override bool HasGetMany { get { return true; } }
        public override void Build(string path, int n, Func<long, byte[]> value)
        {
            using (var b = new DryDB.DatabaseBuilder(new DryDB.BuilderOptions { PageSize = 4096 }))
            {
                var tb = b.CreateTable("bench", DryDB.KeyKind.Int64);
                for (int i = 0; i < n; i++) tb.Append((long)i, value(i));
                b.Build(path);
            }
        }
        public override void Open(string path) { db = DryDB.Database.Open(path); t = db.GetTable("bench"); }
        public override void Close() { db.Dispose(); }
        public override bool TryGet(long key, out byte[] value) { return t.TryGet(key, out value); }
        public override int GetMany(long[] keys, int off, int n, byte[][] vals) { return t.GetMany(keys, off, vals, 0, n); }
        public override long Scan(long lo, long hi)
        {
            byte** ks = stackalloc byte*[ScanBatch]; byte** vs = stackalloc byte*[ScanBatch];
            UIntPtr* kls = stackalloc UIntPtr[ScanBatch]; UIntPtr* vls = stackalloc UIntPtr[ScanBatch];
            long n = 0, sum = 0;
            for (;;)
            {
                // one call per batch: the rows of [lo, hi], at most ScanBatch of them
                int m = t.ReadRange(lo, hi, false, ScanBatch, ks, kls, vs, vls);
                for (int i = 0; i < m; i++) sum += vs[i][(long)(ulong)vls[i] - 1];
                n += m;
                if (m < ScanBatch) break;
                long last = DryDB.Keys.ReadInt64(ks[m - 1]);
                if (last >= hi) break;
                lo = last + 1;
            }
            return sum < 0 ? -1 : n;
        }
        public override long Count(long lo, long hi) { return t.Count(lo, hi); }
    }
#endif

    // ---------------------------------------------------------------- driver
    public static class Program
    {
        const int StreamKeys = 1 << 20, Batch = 256;
        static int reps = 5, buildReps = 3;
        static double targetNs = 25e6;
        static int N;
        static long sink;

        static Store Make(string name)
        {
            switch (name)
            {
                case "lmdb": return new LmdbStore();
                case "sqlite": return new SqliteStore(false);
                case "sqlite_tuned": return new SqliteStore(true);
                case "array": return new ArrayStore();
                case "dictionary": return new DictStore();
#if DRYDB
                case "drydb": return new DrydbStore();
#endif
                default: return null;
            }
        }

        static byte[] Value(long k) { return Encoding.ASCII.GetBytes("value-" + k.ToString("D7", CultureInfo.InvariantCulture)); }

        static string F(double x) { return x.ToString("0.##", CultureInfo.InvariantCulture); }
        static string Q(string s) { return "\"" + s.Replace("\\", "\\\\").Replace("\"", "\\\"") + "\""; }

        static double Median(List<double> xs)
        {
            var s = new List<double>(xs); s.Sort();
            int n = s.Count;
            return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        }

        static void Emit(Store st, string shape, List<double> r, long ops, string extra)
        {
            var sb = new StringBuilder();
            sb.Append("{\"lang\":\"csharp\",\"store\":").Append(Q(st.Name)).Append(",\"shape\":").Append(Q(shape))
              .Append(",\"rows\":").Append(N).Append(",\"ns_per_op\":").Append(F(Median(r)))
              .Append(",\"ops_per_rep\":").Append(ops).Append(",\"reps\":[");
            for (int i = 0; i < r.Count; i++) sb.Append(i > 0 ? "," : "").Append(F(r[i]));
            sb.Append("]").Append(extra).Append("}");
            Console.Out.WriteLine(sb.ToString());
            Console.Out.Flush();
        }

        static double Time(Action<long> fn, long ops)
        {
            var sw = Stopwatch.StartNew();
            fn(ops);
            return sw.Elapsed.Ticks * (1e9 / TimeSpan.TicksPerSecond);
        }

        static void Run(Store st, string shape, Action<long> fn, long granule, string extra = "")
        {
            long ops = granule;
            double t = Time(fn, ops);
            while (t < targetNs / 10 && ops < (1L << 40)) { ops *= 4; t = Time(fn, ops); }
            ops = Math.Max(granule, (long)(ops * targetNs / Math.Max(t, 1)) / granule * granule);
            var r = new List<double>();
            for (int i = 0; i < reps; i++) r.Add(Time(fn, ops) / ops);
            Emit(st, shape, r, ops, extra);
        }

        static void Fail(Store st, string what) { Console.Error.WriteLine("csharp " + st.Name + ": " + what); Environment.Exit(1); }

        static void Bench(Store st, string dir, HashSet<string> shapes)
        {
            Func<string, bool> want = s => shapes == null || shapes.Contains(s);
            string path = Path.Combine(dir, "cs-" + st.Name + "-" + N + ".db");
            var r = new List<double>();
            bool built = true;
            for (int i = 0; i < (want("build") ? buildReps : 1); i++)
            {
                if (Directory.Exists(path)) Directory.Delete(path, true);
                File.Delete(path); File.Delete(path + "-lock");
                var sw = Stopwatch.StartNew();
                try { st.Build(path, N, Value); }
                catch (NotSupportedException) { built = false; path = Path.Combine(dir, "c-" + st.Name + "-" + N + ".db"); break; }
                r.Add(sw.Elapsed.Ticks * (1e9 / TimeSpan.TicksPerSecond) / N);
            }
            if (built && want("build"))
            {
                long size = File.Exists(path) ? new FileInfo(path).Length : 0;
                Emit(st, "build", r, N, ",\"rows_per_s\":" + (long)(1e9 / Median(r)) + ",\"file_bytes\":" + size +
                     ",\"version\":" + Q(st.Version()) + ",\"config\":" + Q(st.Config));
            }

            st.Open(path);
            byte[] v;
            if (!st.TryGet(123, out v) || Encoding.ASCII.GetString(v) != "value-0000123") Fail(st, "get(123) wrong");
            if (st.TryGet(N, out v)) Fail(st, "get(N) should be absent");
            if (st.HasScan && st.Scan(2000, 2099) != 100) Fail(st, "scan [2000,2099] wrong");
            if (st.HasCount && st.Count(1000, 8999) != 8000) Fail(st, "count [1000,8999] wrong");

            var stream = new long[StreamKeys];
            uint seed = 42;
            for (int i = 0; i < StreamKeys; i++) { seed = seed * 1664525u + 1013904223u; stream[i] = seed % (uint)N; }
            int pos = 0;
            var vals = new byte[Batch][];

            if (want("get_one")) Run(st, "get_one", ops => { long s = 0; byte[] x; for (long i = 0; i < ops; i++) if (st.TryGet(123, out x)) s += x.Length; sink += s; }, 1000);
            if (want("get_random")) Run(st, "get_random", ops =>
            {
                long s = 0; byte[] x; uint sd = 1;
                for (long i = 0; i < ops; i++)
                {
                    if (i % 1000 == 0) sd = 1;
                    sd = sd * 1664525u + 1013904223u;
                    if (st.TryGet(sd % (uint)N, out x)) s += x.Length;
                }
                sink += s;
            }, 1000);
            if (want("get_stream")) { pos = 0; Run(st, "get_stream", ops =>
            {
                long s = 0; byte[] x;
                for (long i = 0; i < ops; i++) { if (st.TryGet(stream[pos], out x)) s += x.Length; if (++pos == StreamKeys) pos = 0; }
                sink += s;
            }, 1000); }
            if (st.HasGetMany && want("get_many_stream")) { pos = 0; Run(st, "get_many_stream", ops =>
            {
                long s = 0;
                for (long i = 0; i < ops; i += Batch) { if (pos + Batch > StreamKeys) pos = 0; s += st.GetMany(stream, pos, Batch, vals); pos += Batch; }
                sink += s;
            }, Batch, ",\"batch\":256"); }
            if (st.HasScan && want("scan_100")) Run(st, "scan_100", ops => { for (long i = 0; i < ops; i++) sink += st.Scan(2000, 2099); }, 1);
            if (st.HasCount && want("count_8000")) Run(st, "count_8000", ops => { for (long i = 0; i < ops; i++) sink += st.Count(1000, 8999); }, 1);
            st.Close();
            if (st.FileBacked && want("open_get")) Run(st, "open_get", ops =>
            {
                byte[] x;
                for (long i = 0; i < ops; i++) { st.Open(path); if (st.TryGet(123, out x)) sink += x.Length; st.Close(); }
            }, 1);
        }

        public static int Main(string[] args)
        {
            if (args.Length < 2) { Console.Error.WriteLine("usage: Bench.exe ROWS DATADIR [stores] [shapes]"); return 2; }
            N = int.Parse(args[0], CultureInfo.InvariantCulture);
            string stores = args.Length > 2 ? args[2] : "lmdb,sqlite,sqlite_tuned,array,dictionary,drydb";
            HashSet<string> shapes = args.Length > 3 ? new HashSet<string>(args[3].Split(',')) : null;
            string e;
            if ((e = Environment.GetEnvironmentVariable("BENCH_REPS")) != null) reps = int.Parse(e);
            if ((e = Environment.GetEnvironmentVariable("BENCH_BUILD_REPS")) != null) buildReps = int.Parse(e);
            if ((e = Environment.GetEnvironmentVariable("BENCH_TARGET_MS")) != null) targetNs = double.Parse(e, CultureInfo.InvariantCulture) * 1e6;
            Directory.CreateDirectory(args[1]);
            foreach (var name in stores.Split(','))
            {
                var st = Make(name);
                if (st == null) { Console.Error.WriteLine("bench/csharp: skipping " + name + ": not compiled in (drydb: needs the DryDB binding, see bench/run)"); continue; }
                try { Bench(st, args[1], shapes); }
                catch (DllNotFoundException ex) { Console.Error.WriteLine("bench/csharp: skipping " + name + ": " + ex.Message); }
            }
            return sink == 42 ? 1 : 0;
        }
    }
}
