// Bench.cs - C# (Mono) peers of drydb's benchmark suite: the operations of
// bench/c on the rows of one key shape (a bench/shapes.py file).
//
// build: mcs -langversion:7.2 -unsafe -optimize+ -r:Mono.Data.Sqlite -r:System.Data Bench.cs
//        (bench/run adds -d:DRYDB -r:DryDB.dll when the drydb binding is there)
// usage: mono Bench.exe ROWSFILE DATADIR [stores] [ops]
// env:   BENCH_REPS (5), BENCH_BUILD_REPS (3), BENCH_TARGET_MS (25)
// Prints one JSON line per (store, operation) on stdout, "lang":"csharp".
//
// Keys: integer shapes (dense, sparse) go through the stores' long overloads,
// the others (str16, uuid7) as the encoded key bytes (byte[]), the same for
// every store: what a program holding its keys in encoded form passes.
//
// Adding a store = one more subclass of Store, registered in Program.Make.
// The drydb binding goes in DrydbStore below (namespace DryDB: Database.Open,
// db.GetTable("bench"), table.TryGet, GetMany, ReadRange, Count).
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
    // ---------------------------------------------------------------- rows
    // One shape's rows, read from a bench/shapes.py file (its docstring has
    // the format).
    public sealed class Rows
    {
        public const int KindInt64 = 0, KindString = 1, KindUuid = 2;
        public string Shape; public int Kind, KLen, N;
        public byte[][] Keys, Vals; public byte[] Miss;
        public long[] Ints;   // integer shapes: the keys decoded
        public bool IsInt { get { return Kind == KindInt64; } }

        public static Rows Read(string path)
        {
            byte[] b = File.ReadAllBytes(path);
            if (b.Length < 48 || Encoding.ASCII.GetString(b, 0, 8) != "DRYBENCH" || BitConverter.ToUInt32(b, 8) != 1)
                throw new InvalidDataException(path + ": not a bench/shapes.py rows file of version 1");
            var r = new Rows { KLen = (int)BitConverter.ToUInt32(b, 12), Kind = (int)BitConverter.ToUInt32(b, 40) };
            ulong n = BitConverter.ToUInt64(b, 16);
            if ((r.KLen != 8 && r.KLen != 16) || n < 9000 || n > (1UL << 30) || r.Kind > KindUuid)
                throw new InvalidDataException(path + ": bad header (9,000 rows at least)");
            r.N = (int)n;
            r.Shape = Encoding.ASCII.GetString(b, 24, 16).TrimEnd('\0');
            int o = 48;
            r.Miss = Slice(b, o, r.KLen); o += r.KLen;
            r.Keys = new byte[r.N][]; r.Vals = new byte[r.N][];
            for (int i = 0; i < r.N; i++, o += r.KLen) r.Keys[i] = Slice(b, o, r.KLen);
            int p = o + r.N;
            for (int i = 0; i < r.N; i++) { r.Vals[i] = Slice(b, p, b[o + i]); p += b[o + i]; }
            if (p != b.Length) throw new InvalidDataException(path + ": size does not match its header");
            if (r.IsInt)
            {
                r.Ints = new long[r.N];
                for (int i = 0; i < r.N; i++) r.Ints[i] = Store.Int(r.Keys[i]);
            }
            return r;
        }

        static byte[] Slice(byte[] b, int o, int n) { var x = new byte[n]; Buffer.BlockCopy(b, o, x, 0, n); return x; }
    }

    // ---------------------------------------------------------------- store interface
    // Integer shapes call the long members, the others the byte[] members.
    public abstract unsafe class Store
    {
        public abstract string Name { get; }
        public abstract string Config { get; }
        public virtual string Version() { return ""; }
        public virtual bool FileBacked { get { return true; } }   // open_get measured only with a file
        public virtual bool HasGetMany { get { return false; } }
        public virtual bool HasScan { get { return true; } }
        public virtual bool HasCount { get { return true; } }

        // the rows (keys ascending); durable when it returns
        public abstract void Build(string path, Rows rows);
        public abstract void Open(string path);
        public abstract void Close();
        public abstract bool TryGet(byte[] key, out byte[] value);
        public virtual bool TryGet(long key, out byte[] value) { return TryGet(KeyBytes(key), out value); }
        // keys[off..off+n) -> vals[0..n); returns how many were found
        public virtual int GetMany(long[] keys, int off, int n, byte[][] vals) { throw new NotSupportedException(); }
        // keys of klen bytes back to back from flat[off * klen]
        public virtual int GetMany(byte[] flat, int klen, int off, int n, byte[][] vals) { throw new NotSupportedException(); }
        // rows with lo <= key <= hi, each value materialized as byte[]; returns rows
        public virtual long Scan(byte[] lo, byte[] hi) { throw new NotSupportedException(); }
        public virtual long Scan(long lo, long hi) { return Scan(KeyBytes(lo), KeyBytes(hi)); }
        public virtual long Count(byte[] lo, byte[] hi) { throw new NotSupportedException(); }
        public virtual long Count(long lo, long hi) { return Count(KeyBytes(lo), KeyBytes(hi)); }

        // int64 -> 8 bytes big-endian with the sign bit flipped
        public static void Key(long k, byte* o)
        {
            ulong u = (ulong)k ^ 0x8000000000000000UL;
            for (int i = 7; i >= 0; i--) { o[i] = (byte)u; u >>= 8; }
        }
        public static byte[] KeyBytes(long k)
        {
            var b = new byte[8];
            fixed (byte* p = b) Key(k, p);
            return b;
        }
        public static ulong BE(byte* p)
        {
            ulong u = 0;
            for (int i = 0; i < 8; i++) u = (u << 8) | p[i];
            return u;
        }
        public static long Int(byte[] k) { fixed (byte* p = k) return (long)(BE(p) ^ 0x8000000000000000UL); }
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

        public override void Build(string path, Rows r)
        {
            IntPtr e, t; uint d;
            Lmdb.Check(Lmdb.mdb_env_create(out e), "env_create");
            Lmdb.mdb_env_set_mapsize(e, new UIntPtr(64UL << 30));
            Lmdb.Check(Lmdb.mdb_env_open(e, path, Lmdb.NOSUBDIR, 420), "env_open");
            Lmdb.Check(Lmdb.mdb_txn_begin(e, IntPtr.Zero, 0, out t), "txn_begin");
            Lmdb.Check(Lmdb.mdb_dbi_open(t, IntPtr.Zero, 0, out d), "dbi_open");
            for (int i = 0; i < r.N; i++)
            {
                byte[] kb = r.Keys[i], v = r.Vals[i];
                fixed (byte* kp = kb) fixed (byte* vp = v)
                {
                    MDB_val k, dv;
                    k.size = new UIntPtr((uint)kb.Length); k.data = kp;
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

        bool Get(byte* kb, int klen, out byte[] value)
        {
            MDB_val k, v;
            k.size = new UIntPtr((uint)klen); k.data = kb;
            int rc = Lmdb.mdb_get(txn, dbi, &k, &v);
            if (rc != 0) { value = null; if (rc != Lmdb.NOTFOUND) Lmdb.Check(rc, "get"); return false; }
            value = Copy(v);
            return true;
        }

        public override bool TryGet(long key, out byte[] value)
        {
            byte* kb = stackalloc byte[8];
            Key(key, kb);
            return Get(kb, 8, out value);
        }

        public override bool TryGet(byte[] key, out byte[] value)
        {
            fixed (byte* kb = key) return Get(kb, key.Length, out value);
        }

        long Walk(byte* lo, byte* hi, int klen, bool values)
        {
            MDB_val k, v;
            k.size = new UIntPtr((uint)klen); k.data = lo;
            long n = 0;
            for (int rc = Lmdb.mdb_cursor_get(cur, &k, &v, Lmdb.SET_RANGE); rc == 0; rc = Lmdb.mdb_cursor_get(cur, &k, &v, Lmdb.NEXT))
            {
                if (Cmp(k.data, (int)k.size, hi, klen) > 0) break;
                if (values) Copy(v);
                n++;
            }
            return n;
        }

        static int Cmp(byte* a, int alen, byte* b, int blen)
        {
            int m = alen < blen ? alen : blen;
            for (int i = 0; i < m; i++) if (a[i] != b[i]) return a[i] - b[i];
            return alen - blen;
        }

        long Walk(long lo, long hi, bool values)
        {
            byte* kb = stackalloc byte[8]; byte* hb = stackalloc byte[8];
            Key(lo, kb); Key(hi, hb);
            return Walk(kb, hb, 8, values);
        }

        long Walk(byte[] lo, byte[] hi, bool values)
        {
            fixed (byte* l = lo) fixed (byte* h = hi) return Walk(l, h, lo.Length, values);
        }

        public override long Scan(long lo, long hi) { return Walk(lo, hi, true); }
        public override long Count(long lo, long hi) { return Walk(lo, hi, false); }
        public override long Scan(byte[] lo, byte[] hi) { return Walk(lo, hi, true); }
        public override long Count(byte[] lo, byte[] hi) { return Walk(lo, hi, false); }
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

        public override void Build(string p, Rows rows)
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
                    for (int i = 0; i < rows.N; i++) { pk.Value = rows.Keys[i]; pv.Value = rows.Vals[i]; ins.ExecuteNonQuery(); }
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

        public override bool TryGet(byte[] key, out byte[] value)
        {
            object r;
            if (tuned)
            {
                gk.Value = key;
                r = get.ExecuteScalar();
            }
            else
            {
                using (var cmd = new SqliteCommand("SELECT v FROM bench WHERE k=@k", conn))
                {
                    cmd.Parameters.AddWithValue("@k", key);
                    r = cmd.ExecuteScalar();
                }
            }
            value = r as byte[];
            return value != null;
        }

        const string ScanSql = "SELECT v FROM bench WHERE k>=@lo AND k<=@hi ORDER BY k";
        const string ScanSqlCast = "SELECT CAST(v AS BLOB) FROM bench WHERE k>=@lo AND k<=@hi ORDER BY k";
        const string CountSql = "SELECT COUNT(*) FROM bench WHERE k>=@lo AND k<=@hi";

        public override long Scan(byte[] lo, byte[] hi)
        {
            long n = 0;
            if (tuned)
            {
                if (scan == null) scan = Prep(ScanSqlCast, out slo, "@hi", out shi);
                slo.Value = lo; shi.Value = hi;
                using (var r = scan.ExecuteReader()) while (r.Read()) { var v = (byte[])r[0]; n++; }
                return n;
            }
            using (var cmd = new SqliteCommand(ScanSql, conn))
            {
                cmd.Parameters.AddWithValue("@lo", lo);
                cmd.Parameters.AddWithValue("@hi", hi);
                using (var r = cmd.ExecuteReader()) while (r.Read()) { var v = (byte[])r[0]; n++; }
            }
            return n;
        }

        public override long Count(byte[] lo, byte[] hi)
        {
            if (tuned)
            {
                if (count == null) count = Prep(CountSql, out clo, "@hi", out chi);
                clo.Value = lo; chi.Value = hi;
                return (long)count.ExecuteScalar();
            }
            using (var cmd = new SqliteCommand(CountSql, conn))
            {
                cmd.Parameters.AddWithValue("@lo", lo);
                cmd.Parameters.AddWithValue("@hi", hi);
                return (long)cmd.ExecuteScalar();
            }
        }
    }

    // ---------------------------------------------------------------- floors (in RAM, no file)
    // Key bytes compared (as memcmp) and hashed eight bytes at a time.
    public sealed unsafe class Bytes : IComparer<byte[]>, IEqualityComparer<byte[]>
    {
        public static readonly Bytes Order = new Bytes();
        public int Compare(byte[] a, byte[] b)
        {
            int n = Math.Min(a.Length, b.Length), i = 0;
            fixed (byte* p = a) fixed (byte* q = b)
            {
                for (; i + 8 <= n; i += 8)
                {
                    ulong x = Store.BE(p + i), y = Store.BE(q + i);
                    if (x != y) return x < y ? -1 : 1;
                }
                for (; i < n; i++) if (p[i] != q[i]) return p[i] - q[i];
            }
            return a.Length - b.Length;
        }
        public bool Equals(byte[] a, byte[] b) { return a.Length == b.Length && Compare(a, b) == 0; }
        public int GetHashCode(byte[] a)
        {
            ulong h = (ulong)a.Length;
            fixed (byte* p = a)
            {
                int i = 0;
                for (; i + 8 <= a.Length; i += 8) h = (h ^ *(ulong*)(p + i)) * 0x9E3779B97F4A7C15UL;
                for (; i < a.Length; i++) h = (h ^ p[i]) * 0x9E3779B97F4A7C15UL;
            }
            return (int)(h ^ (h >> 32));
        }
    }

    public sealed class ArrayStore : Store
    {
        static readonly Dictionary<string, ArrayStore> built = new Dictionary<string, ArrayStore>();
        long[] ints; byte[][] keys, vals;
        public override string Name { get { return "array"; } }
        public override string Config { get { return "Array.BinarySearch over long[] (integer shapes) or byte[][] with an ordinal comparer (string, UUID) + byte[][] values, in RAM (the floor)"; } }
        public override bool FileBacked { get { return false; } }
        public override void Build(string path, Rows r) { built[path] = new ArrayStore { ints = r.Ints, keys = r.Keys, vals = r.Vals }; }
        public override void Open(string path) { var s = built[path]; ints = s.ints; keys = s.keys; vals = s.vals; }
        public override void Close() { }
        public override bool TryGet(long key, out byte[] value)
        {
            int i = Array.BinarySearch(ints, key);
            value = i >= 0 ? vals[i] : null;
            return i >= 0;
        }
        public override bool TryGet(byte[] key, out byte[] value)
        {
            int i = Array.BinarySearch(keys, key, Bytes.Order);
            value = i >= 0 ? vals[i] : null;
            return i >= 0;
        }
        // rows [i, j): lower bound of lo, upper bound of hi; values: each one touched
        long Take(int i, int j, bool values)
        {
            int sum = 0;
            if (values) for (int k = i; k < j; k++) sum += vals[k].Length;
            sink += sum;
            return j > i ? j - i : 0;
        }
        public static long sink;
        static int Lo(int i) { return i >= 0 ? i : ~i; }
        static int Hi(int i) { return i >= 0 ? i + 1 : ~i; }
        public override long Scan(long lo, long hi) { return Take(Lo(Array.BinarySearch(ints, lo)), Hi(Array.BinarySearch(ints, hi)), true); }
        public override long Count(long lo, long hi) { return Take(Lo(Array.BinarySearch(ints, lo)), Hi(Array.BinarySearch(ints, hi)), false); }
        public override long Scan(byte[] lo, byte[] hi) { return Take(Lo(Array.BinarySearch(keys, lo, Bytes.Order)), Hi(Array.BinarySearch(keys, hi, Bytes.Order)), true); }
        public override long Count(byte[] lo, byte[] hi) { return Take(Lo(Array.BinarySearch(keys, lo, Bytes.Order)), Hi(Array.BinarySearch(keys, hi, Bytes.Order)), false); }
    }

    public sealed class DictStore : Store
    {
        static readonly Dictionary<string, DictStore> built = new Dictionary<string, DictStore>();
        Dictionary<long, byte[]> ints; Dictionary<byte[], byte[]> keys;
        public override string Name { get { return "dictionary"; } }
        public override string Config { get { return "Dictionary<long,byte[]> (integer shapes) or Dictionary<byte[],byte[]> with a hashing comparer (string, UUID), TryGetValue, in RAM (point-get floor)"; } }
        public override bool FileBacked { get { return false; } }
        public override bool HasScan { get { return false; } }
        public override bool HasCount { get { return false; } }
        public override void Build(string path, Rows r)
        {
            var s = new DictStore();
            if (r.IsInt) { s.ints = new Dictionary<long, byte[]>(r.N); for (int i = 0; i < r.N; i++) s.ints[r.Ints[i]] = r.Vals[i]; }
            else { s.keys = new Dictionary<byte[], byte[]>(r.N, Bytes.Order); for (int i = 0; i < r.N; i++) s.keys[r.Keys[i]] = r.Vals[i]; }
            built[path] = s;
        }
        public override void Open(string path) { var s = built[path]; ints = s.ints; keys = s.keys; }
        public override void Close() { }
        public override bool TryGet(long key, out byte[] value) { return ints.TryGetValue(key, out value); }
        public override bool TryGet(byte[] key, out byte[] value) { return keys.TryGetValue(key, out value); }
    }

#if DRYDB
    // ---------------------------------------------------------------- drydb (the binding)
    // Compiled in by bench/run with -d:DRYDB -r:DryDB.dll when the binding exists.
    // Adjust the calls here to the binding's final API; nothing else changes.
    // With zstd it is the store "drydb_zstd": the same table with zstd pages.
    public sealed unsafe class DrydbStore : Store
    {
        const int ScanBatch = 256;
        readonly bool zstd;
        DryDB.Database db; DryDB.Table t;
        public DrydbStore(bool zstd) { this.zstd = zstd; }
        public override string Name { get { return zstd ? "drydb_zstd" : "drydb"; } }
        public override string Config { get { return "DryDB binding: table 'bench', Int64 / String / Uuid keys by shape, " + (zstd ? "zstd pages (default level)" : "uncompressed") + ", 4 KiB pages; TryGet(long or byte[], out byte[]) copies; GetMany (long[] or concatenated key bytes) copies into the caller's array (one crossing per 256 keys); scan: Table.ReadRange(lo, hi, up to 256 rows per call) zero-copy (pointer + length, last byte of each value read), no cursor, continues after the last key while batches come back full; Count(lo, hi)"; } }
        public override bool HasGetMany { get { return true; } }
        static readonly DryDB.KeyKind[] kinds = { DryDB.KeyKind.Int64, DryDB.KeyKind.String, DryDB.KeyKind.Uuid };
        public override void Build(string path, Rows r)
        {
            using (var b = new DryDB.DatabaseBuilder(new DryDB.BuilderOptions { PageSize = 4096 }))
            {
                var opts = new DryDB.TableOptions { Compression = zstd ? DryDB.Compression.Zstd : DryDB.Compression.None };
                var tb = b.CreateTable("bench", kinds[r.Kind], opts);
                for (int i = 0; i < r.N; i++) tb.Append(r.Keys[i], r.Vals[i]);
                b.Build(path);
            }
        }
        public override void Open(string path) { db = DryDB.Database.Open(path); t = db.GetTable("bench"); }
        public override void Close() { db.Dispose(); }
        public override bool TryGet(long key, out byte[] value) { return t.TryGet(key, out value); }
        public override bool TryGet(byte[] key, out byte[] value) { return t.TryGet(key, out value); }
        public override int GetMany(long[] keys, int off, int n, byte[][] vals) { return t.GetMany(keys, off, vals, 0, n); }
        public override int GetMany(byte[] flat, int klen, int off, int n, byte[][] vals)
        {
            UIntPtr* kls = stackalloc UIntPtr[n];
            for (int i = 0; i < n; i++) kls[i] = (UIntPtr)klen;
            fixed (byte* k = flat) return t.GetMany(n, k + (long)off * klen, kls, vals);
        }
        public override long Scan(long lo, long hi)
        {
            byte** ks = stackalloc byte*[ScanBatch]; byte** vs = stackalloc byte*[ScanBatch];
            UIntPtr* kls = stackalloc UIntPtr[ScanBatch]; UIntPtr* vls = stackalloc UIntPtr[ScanBatch];
            long n = 0, sum = 0;
            for (;;)
            {
                // one call per batch: the rows of [lo, hi], at most ScanBatch of them
                // (ReadRange's two keys are half-open: [lo, hi + 1))
                int m = t.ReadRange(lo, hi + 1, false, ScanBatch, ks, kls, vs, vls);
                for (int i = 0; i < m; i++) sum += vs[i][(long)(ulong)vls[i] - 1];
                n += m;
                if (m < ScanBatch) break;
                long last = DryDB.Keys.ReadInt64(ks[m - 1]);
                if (last >= hi) break;
                lo = last + 1;
            }
            return sum < 0 ? -1 : n;
        }
        public override long Scan(byte[] lo, byte[] hi)
        {
            byte** ks = stackalloc byte*[ScanBatch]; byte** vs = stackalloc byte*[ScanBatch];
            UIntPtr* kls = stackalloc UIntPtr[ScanBatch]; UIntPtr* vls = stackalloc UIntPtr[ScanBatch];
            byte* from = stackalloc byte[lo.Length];
            for (int i = 0; i < lo.Length; i++) from[i] = lo[i];
            var kind = DryDB.BoundKind.Inclusive;
            long n = 0, sum = 0;
            fixed (byte* h = hi)
                for (;;)
                {
                    int m = t.ReadRange(from, lo.Length, kind, h, hi.Length, DryDB.BoundKind.Inclusive, false, ScanBatch, ks, kls, vs, vls);
                    for (int i = 0; i < m; i++) sum += vs[i][(long)(ulong)vls[i] - 1];
                    n += m;
                    if (m < ScanBatch) break;
                    // on after the last key, copied: a compressed table's key lives in the thread buffer
                    for (int i = 0; i < lo.Length; i++) from[i] = ks[m - 1][i];
                    kind = DryDB.BoundKind.Exclusive;
                }
            return sum < 0 ? -1 : n;
        }
        // [lo, hi], as every store here counts (two keys alone would be [lo, hi))
        public override long Count(long lo, long hi) { return t.Count(DryDB.Bound.Inclusive(lo), DryDB.Bound.Inclusive(hi)); }
        public override long Count(byte[] lo, byte[] hi) { return t.Count(DryDB.Bound.Inclusive(lo), DryDB.Bound.Inclusive(hi)); }
    }
#endif

    // ---------------------------------------------------------------- driver
    public static class Program
    {
        const int StreamKeys = 1 << 20, RandomKeys = 1000, Batch = 256;
        static int reps = 5, buildReps = 3;
        static double targetNs = 25e6;
        static Rows R;
        static long sink;
        // the get workloads' keys (row numbers from the LCG, seed 42 for the
        // stream, 1 for the random keys), made once per process: integer
        // shapes as long, the others as byte[] (the stream also back to back
        // in one array, for GetMany)
        static long[] streamInts, rndInts;
        static byte[][] streamKeys, rndKeys;
        static byte[] streamFlat;

        static void MakeKeys()
        {
            int[] streamRows = LcgRows(42, StreamKeys), rndRows = LcgRows(1, RandomKeys);
            if (R.IsInt)
            {
                streamInts = Array.ConvertAll(streamRows, i => R.Ints[i]);
                rndInts = Array.ConvertAll(rndRows, i => R.Ints[i]);
                return;
            }
            int kl = R.KLen;
            streamFlat = new byte[(long)StreamKeys * kl];
            streamKeys = new byte[StreamKeys][];
            for (int i = 0; i < StreamKeys; i++)
            {
                Buffer.BlockCopy(R.Keys[streamRows[i]], 0, streamFlat, i * kl, kl);
                // copies, allocated in stream order: reading the next key is
                // not a cache miss of its own (as in bench/c and bench/go)
                streamKeys[i] = (byte[])R.Keys[streamRows[i]].Clone();
            }
            rndKeys = Array.ConvertAll(rndRows, i => (byte[])R.Keys[i].Clone());
        }

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
                case "drydb": return new DrydbStore(false);
                case "drydb_zstd": return new DrydbStore(true);
#endif
                default: return null;
            }
        }

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
            sb.Append("{\"lang\":\"csharp\",\"store\":").Append(Q(st.Name)).Append(",\"data\":").Append(Q(R.Shape))
              .Append(",\"shape\":").Append(Q(shape)).Append(",\"rows\":").Append(R.N).Append(",\"ns_per_op\":").Append(F(Median(r)))
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

        static void Fail(Store st, string what)
        {
            Console.Error.WriteLine("csharp " + st.Name + ": " + what + " (" + R.Shape + ", rows=" + R.N + ")");
            Environment.Exit(1);
        }

        static bool Same(byte[] a, byte[] b) { return a != null && Bytes.Order.Equals(a, b); }

        // the get workloads' keys, drawn from the table's keys by row number (LCG % N)
        static int[] LcgRows(uint seed, int count)
        {
            var o = new int[count];
            for (int i = 0; i < count; i++) { seed = seed * 1664525u + 1013904223u; o[i] = (int)(seed % (uint)R.N); }
            return o;
        }

        static void Bench(Store st, string dir, HashSet<string> ops)
        {
            Func<string, bool> want = s => ops == null || ops.Contains(s);
            int N = R.N, kl = R.KLen;
            bool ints = R.IsInt;
            string path = Path.Combine(dir, "cs-" + st.Name + "-" + R.Shape + "-" + N + ".db");
            var r = new List<double>();
            for (int i = 0; i < (want("build") ? buildReps : 1); i++)
            {
                if (Directory.Exists(path)) Directory.Delete(path, true);
                File.Delete(path); File.Delete(path + "-lock");
                var sw = Stopwatch.StartNew();
                st.Build(path, R);
                r.Add(sw.Elapsed.Ticks * (1e9 / TimeSpan.TicksPerSecond) / N);
            }
            if (want("build"))
            {
                long size = File.Exists(path) ? new FileInfo(path).Length : 0;
                Emit(st, "build", r, N, ",\"rows_per_s\":" + (long)(1e9 / Median(r)) + ",\"file_bytes\":" + size +
                     ",\"version\":" + Q(st.Version()) + ",\"config\":" + Q(st.Config));
            }

            // one lookup by row number, through the members the shape uses
            Func<int, byte[]> get = i => { byte[] x; return (ints ? st.TryGet(R.Ints[i], out x) : st.TryGet(R.Keys[i], out x)) ? x : null; };
            st.Open(path);
            byte[] v;
            foreach (int i in new[] { 123, N - 1 }) if (!Same(get(i), R.Vals[i])) Fail(st, "get(key " + i + ") wrong");
            if (ints ? st.TryGet(Store.Int(R.Miss), out v) : st.TryGet(R.Miss, out v)) Fail(st, "get(absent key) found a value");
            if (st.HasScan && (ints ? st.Scan(R.Ints[2000], R.Ints[2099]) : st.Scan(R.Keys[2000], R.Keys[2099])) != 100)
                Fail(st, "scan [key 2000, key 2099] wrong");
            if (st.HasCount && (ints ? st.Count(R.Ints[1000], R.Ints[8999]) : st.Count(R.Keys[1000], R.Keys[8999])) != 8000)
                Fail(st, "count [key 1000, key 8999] wrong");

            int pos = 0;
            var vals = new byte[Batch][];
            Func<int, int> many = p => ints ? st.GetMany(streamInts, p, Batch, vals) : st.GetMany(streamFlat, kl, p, Batch, vals);
            if (st.HasGetMany)
            {
                if (many(0) != Batch) Fail(st, "get_many wrong");
                int[] first = LcgRows(42, Batch);
                for (int i = 0; i < Batch; i++) if (!Same(vals[i], R.Vals[first[i]])) Fail(st, "get_many value wrong");
            }

            if (want("get_one")) Run(st, "get_one", n =>
            {
                long s = 0; byte[] x;
                if (ints) { long k = R.Ints[123]; for (long i = 0; i < n; i++) if (st.TryGet(k, out x)) s += x.Length; }
                else { byte[] k = R.Keys[123]; for (long i = 0; i < n; i++) if (st.TryGet(k, out x)) s += x.Length; }
                sink += s;
            }, 1000);
            if (want("get_random")) Run(st, "get_random", n =>
            {
                long s = 0; byte[] x;
                if (ints) for (long i = 0; i < n; i++) { if (st.TryGet(rndInts[i % RandomKeys], out x)) s += x.Length; }
                else for (long i = 0; i < n; i++) { if (st.TryGet(rndKeys[i % RandomKeys], out x)) s += x.Length; }
                sink += s;
            }, RandomKeys);
            if (want("get_stream")) { pos = 0; Run(st, "get_stream", n =>
            {
                long s = 0; byte[] x;
                if (ints) for (long i = 0; i < n; i++) { if (st.TryGet(streamInts[pos], out x)) s += x.Length; if (++pos == StreamKeys) pos = 0; }
                else for (long i = 0; i < n; i++) { if (st.TryGet(streamKeys[pos], out x)) s += x.Length; if (++pos == StreamKeys) pos = 0; }
                sink += s;
            }, 1000); }
            if (st.HasGetMany && want("get_many_stream")) { pos = 0; Run(st, "get_many_stream", n =>
            {
                long s = 0;
                for (long i = 0; i < n; i += Batch) { if (pos + Batch > StreamKeys) pos = 0; s += many(pos); pos += Batch; }
                sink += s;
            }, Batch, ",\"batch\":256"); }
            if (st.HasScan && want("scan_100")) Run(st, "scan_100", n =>
            {
                if (ints) { long lo = R.Ints[2000], hi = R.Ints[2099]; for (long i = 0; i < n; i++) sink += st.Scan(lo, hi); }
                else { byte[] lo = R.Keys[2000], hi = R.Keys[2099]; for (long i = 0; i < n; i++) sink += st.Scan(lo, hi); }
            }, 1);
            if (st.HasCount && want("count_8000")) Run(st, "count_8000", n =>
            {
                if (ints) { long lo = R.Ints[1000], hi = R.Ints[8999]; for (long i = 0; i < n; i++) sink += st.Count(lo, hi); }
                else { byte[] lo = R.Keys[1000], hi = R.Keys[8999]; for (long i = 0; i < n; i++) sink += st.Count(lo, hi); }
            }, 1);
            st.Close();
            if (st.FileBacked && want("open_get")) Run(st, "open_get", n =>
            {
                for (long i = 0; i < n; i++) { st.Open(path); byte[] x = get(123); if (x != null) sink += x.Length; st.Close(); }
            }, 1);
        }

        public static int Main(string[] args)
        {
            if (args.Length < 2) { Console.Error.WriteLine("usage: Bench.exe ROWSFILE DATADIR [stores] [ops]"); return 2; }
            try { R = Rows.Read(args[0]); }
            catch (Exception ex) when (ex is IOException || ex is InvalidDataException) { Console.Error.WriteLine("bench/csharp: " + ex.Message); return 2; }
            string stores = args.Length > 2 ? args[2] : "lmdb,sqlite,sqlite_tuned,array,dictionary,drydb,drydb_zstd";
            HashSet<string> ops = args.Length > 3 ? new HashSet<string>(args[3].Split(',')) : null;
            string e;
            if ((e = Environment.GetEnvironmentVariable("BENCH_REPS")) != null) reps = int.Parse(e);
            if ((e = Environment.GetEnvironmentVariable("BENCH_BUILD_REPS")) != null) buildReps = int.Parse(e);
            if ((e = Environment.GetEnvironmentVariable("BENCH_TARGET_MS")) != null) targetNs = double.Parse(e, CultureInfo.InvariantCulture) * 1e6;
            Directory.CreateDirectory(args[1]);
            MakeKeys();
            foreach (var name in stores.Split(','))
            {
                var st = Make(name);
                if (st == null) { Console.Error.WriteLine("bench/csharp: skipping " + name + ": not compiled in (drydb: needs the DryDB binding, see bench/run)"); continue; }
                try { Bench(st, args[1], ops); }
                catch (DllNotFoundException ex) { Console.Error.WriteLine("bench/csharp: skipping " + name + ": " + ex.Message); }
            }
            return sink + ArrayStore.sink == 42 ? 1 : 0;
        }
    }
}
