// Bench.cs - per-call figures of the binding (`make bench`, or
// `mono DryDB.Tests.exe --bench [rows]`). Shape of docs/BENCHMARKS: int64 keys
// 0..N-1, 13-byte values, 4 KiB pages; random keys from the LCG
// seed = seed*1664525 + 1013904223 (uint32) % N. Median of 5 runs.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;

namespace DryDB.Tests
{
    public static unsafe class Bench
    {
        static long sink;

        static double Median(Func<double> run)
        {
            run(); // warm-up
            var r = Enumerable.Range(0, 5).Select(_ => run()).OrderBy(x => x).ToList();
            return r[2];
        }

        static double Ns(int ops, Action a)
        {
            var sw = Stopwatch.StartNew();
            a();
            return sw.Elapsed.TotalMilliseconds * 1e6 / ops;
        }

        public static void Run(string[] args)
        {
            bool firstRows = args.Length > 0 && args[0] == "first-rows";
            if (firstRows) args = args.Skip(1).ToArray();
            int n = args.Length > 0 ? int.Parse(args[0]) : 10000;
            var path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "drydb-cs-bench-" + Process.GetCurrentProcess().Id + ".drydb");
            using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 4096 }))
            {
                var t = b.CreateTable("bench", KeyKind.Int64);
                t.AppendMany(Enumerable.Range(0, n).Select(i => new KeyValuePair<long, byte[]>(i, Fx.B("value-" + i.ToString("D7")))));
                b.Build(path);
            }
            try
            {
                using (var db = Database.Open(path))
                {
                    var t = db.GetTable("bench");
                    if (firstRows) { FirstRows(t, n); return; }
                    const int Ops = 200000;
                    var keys = new long[Ops];
                    uint seed = 1;
                    for (int i = 0; i < Ops; i++) { seed = seed * 1664525 + 1013904223; keys[i] = seed % (uint)n; }

                    IntPtr raw = GetRaw(t);
                    Report("raw drydb_get P/Invoke, no binding (the floor)", Median(() => Ns(Ops, () =>
                    {
                        byte* k = stackalloc byte[8]; byte* v; UIntPtr vl;
                        for (int i = 0; i < Ops; i++) { Keys.PutInt64(keys[i], k); sink += Native.drydb_get(raw, k, (UIntPtr)8, &v, &vl); }
                    })));
                    Report("TryGet(long, out byte[]), random keys", Median(() => Ns(Ops, () =>
                    {
                        byte[] v;
                        for (int i = 0; i < Ops; i++) if (t.TryGet(keys[i], out v)) sink += v.Length;
                    })));
                    var dest = new byte[64];
                    Report("TryGet(byte*, len, byte[] dest), no allocation", Median(() => Ns(Ops, () =>
                    {
                        byte* k = stackalloc byte[8];
                        for (int i = 0; i < Ops; i++) { Keys.PutInt64(keys[i], k); sink += t.TryGet(k, 8, dest); }
                    })));
                    foreach (int batch in new[] { 16, 256 })
                    {
                        var flat = new byte[batch * 8];
                        var lens = Enumerable.Repeat((UIntPtr)8, batch).ToArray();
                        var vals = new byte[batch][];
                        Report("GetMany per key, pointer batch of " + batch, Median(() => Ns(Ops, () =>
                        {
                            fixed (byte* f = flat) fixed (UIntPtr* l = lens)
                                for (int i = 0; i + batch <= Ops; i += batch)
                                {
                                    for (int j = 0; j < batch; j++) Keys.PutInt64(keys[i + j], f + 8 * j);
                                    sink += t.GetMany(batch, f, l, vals);
                                }
                        })));
                        var list = new long[batch];
                        Report("GetMany(long[]) per key, batch of " + batch, Median(() => Ns(Ops, () =>
                        {
                            for (int i = 0; i + batch <= Ops; i += batch)
                            {
                                Array.Copy(keys, i, list, 0, batch);
                                sink += t.GetMany(list).Length;
                            }
                        })));
                    }
                    Report("cursor per row, Next() + pointer access, whole table", Median(() => Ns(n, () =>
                    {
                        using (var c = t.OpenCursor())
                            while (c.Next()) sink += c.KeyPointer[7] + c.ValueLength;
                    })));
                    Report("cursor per row, Next() + Key/Value copies", Median(() => Ns(n, () =>
                    {
                        using (var c = t.OpenCursor())
                            while (c.Next()) sink += c.Key.Length + c.Value.Length;
                    })));
                    Report("Range(long, long) per row (byte[] copies)", Median(() => Ns(n, () =>
                    {
                        foreach (var kv in t.Range(0L, long.MaxValue)) sink += kv.Value.Length;
                    })));
                    Report("100-row Range [2000, 2099], per range", Median(() => Ns(1000, () =>
                    {
                        for (int r = 0; r < 1000; r++) foreach (var kv in t.Range(2000L, 2099L)) sink += kv.Value.Length;
                    })));
                    ScanBench(t, Ops);
                    var zv = new IntPtr[256];
                    var zl = new UIntPtr[256];
                    Report("GetMany(long[], i, n, byte**, UIntPtr*) zero-copy per key, batch of 256", Median(() => Ns(Ops, () =>
                    {
                        fixed (IntPtr* v = zv) fixed (UIntPtr* l = zl)
                            for (int i = 0; i + 256 <= Ops; i += 256) sink += t.GetMany(keys, i, 256, (byte**)v, l);
                    })));
                    var cv = new byte[256][];
                    Report("GetMany(long[], i, byte[][], 0, n) copies into caller array, per key, batch of 256", Median(() => Ns(Ops, () =>
                    {
                        for (int i = 0; i + 256 <= Ops; i += 256) sink += t.GetMany(keys, i, cv, 0, 256);
                    })));
                    Report("Count [1000, 8999], per call", Median(() => Ns(10000, () =>
                    {
                        for (int r = 0; r < 10000; r++) sink += t.Count(1000L, 8999L);
                    })));
                }
            }
            finally { File.Delete(path); }
            Console.WriteLine("({0} rows; sink {1})", n, sink & 1);
        }

        // Range enumerations with the first batch of before (64 rows, then
        // 128: 192 rows read to hand out 100) and after (16, 32, 64: 112) issue
        // 16 item 5, alternated in one run: medians of 31 samples per size.
        // `mono DryDB.Tests.exe --bench first-rows [rows]`.
        static void FirstRows(Table t, int n)
        {
            int saved = Table.FirstBatch;
            var firsts = new[] { 64, 16 };
            var cases = new[] { 1, 100, n };
            var samples = new List<double>[firsts.Length, cases.Length];
            var cpu = new List<double>[firsts.Length, cases.Length];
            foreach (int i in Enumerable.Range(0, firsts.Length)) foreach (int j in Enumerable.Range(0, cases.Length)) { samples[i, j] = new List<double>(); cpu[i, j] = new List<double>(); }
            try
            {
                for (int rep = -1; rep < 31; rep++) // -1: warm-up
                    for (int j = 0; j < cases.Length; j++)
                        for (int i = 0; i < firsts.Length; i++)
                        {
                            Table.FirstBatch = firsts[i];
                            int take = cases[j], reps = Math.Max(1, 200000 / Math.Max(take, 64));
                            long cpu0 = ThreadCpuNs();
                            double ns = Ns(reps, () =>
                            {
                                for (int r = 0; r < reps; r++)
                                {
                                    int k = 0;
                                    foreach (var kv in t.Range(Bound.Unbounded, Bound.Unbounded)) { sink += kv.Value.Length; if (++k == take) break; }
                                }
                            });
                            if (rep >= 0) { samples[i, j].Add(ns); cpu[i, j].Add((double)(ThreadCpuNs() - cpu0) / reps); }
                        }
            }
            finally { Table.FirstBatch = saved; }
            for (int j = 0; j < cases.Length; j++)
                for (int i = 0; i < firsts.Length; i++)
                {
                    var l = samples[i, j].OrderBy(x => x).ToList();
                    var c = cpu[i, j].OrderBy(x => x).ToList();
                    Report(string.Format("first {0} rows of an unbounded Range, first batch {1} (wall; min {2:F0}, max {3:F0}; thread CPU median {4:F0} ns)",
                                         cases[j], firsts[i], l[0], l[l.Count - 1], c[c.Count / 2]), l[l.Count / 2]);
                }
        }

        // CLOCK_THREAD_CPUTIME_ID: this thread's CPU time, which other
        // processes on a shared machine disturb less than the wall clock.
        [System.Runtime.InteropServices.DllImport("libc.so.6")] static extern int clock_gettime(int clock, out Timespec ts);
        struct Timespec { public long Sec, Nsec; }
        static long ThreadCpuNs() { Timespec ts; clock_gettime(3, out ts); return ts.Sec * 1000000000L + ts.Nsec; }

        static IntPtr GetRaw(Table t)
        {
            var f = typeof(Table).GetField("th", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance);
            return (IntPtr)f.GetValue(t);
        }

        // A method of its own: stackalloc may not appear inside a try block.
        static void ScanBench(Table t, int Ops)
        {
            // (mcs emits invalid IL for a stackalloc stored straight into a variable a lambda captures)
            byte** ks0 = stackalloc byte*[128]; byte** vs0 = stackalloc byte*[128];
            UIntPtr* kls0 = stackalloc UIntPtr[128]; UIntPtr* vls0 = stackalloc UIntPtr[128];
            byte* lo0 = stackalloc byte[8]; Keys.PutInt64(2000, lo0);
            byte** ks = ks0, vs = vs0; UIntPtr* kls = kls0, vls = vls0; byte* lo = lo0;
            using (var rc = t.OpenCursor())
            {
                IntPtr craw = GetRawCursor(rc);
                Report("raw drydb_cursor_seek, reused cursor (the floor of one crossing)", Median(() => Ns(Ops, () =>
                {
                    for (int r = 0; r < Ops; r++) sink += Native.drydb_cursor_seek(craw, lo, (UIntPtr)8);
                })));
                Report("raw seek + drydb_cursor_next_batch(100), per 100 rows", Median(() => Ns(10000, () =>
                {
                    UIntPtr got;
                    for (int r = 0; r < 10000; r++)
                    {
                        Native.drydb_cursor_seek(craw, lo, (UIntPtr)8);
                        sink += Native.drydb_cursor_next_batch(craw, 0, (UIntPtr)100, ks, kls, vs, vls, &got);
                    }
                })));
                Report("raw seek + next_batch(100) keys only, per 100 rows", Median(() => Ns(10000, () =>
                {
                    UIntPtr got;
                    for (int r = 0; r < 10000; r++)
                    {
                        Native.drydb_cursor_seek(craw, lo, (UIntPtr)8);
                        sink += Native.drydb_cursor_next_batch(craw, 0, (UIntPtr)100, ks, kls, null, null, &got);
                    }
                })));
                Report("Cursor.Seek(2000) + NextBatch(128) to 2099, reused cursor, per 100 rows", Median(() => Ns(10000, () =>
                {
                    for (int r = 0; r < 10000; r++)
                    {
                        if (!rc.Seek(2000L)) continue;
                        long cnt = 1; int m;
                        while ((m = rc.NextBatch(128, ks, kls, vs, vls)) > 0)
                        {
                            int i = 0;
                            for (; i < m && Keys.ReadInt64(ks[i]) <= 2099; i++) sink += vs[i][12];
                            cnt += i;
                            if (i < m) break;
                        }
                        sink += cnt;
                    }
                })));
            }
            IntPtr traw = GetRaw(t);
            byte* hi0 = stackalloc byte[8]; Keys.PutInt64(2099, hi0);
            byte* hi = hi0;
            Report("raw drydb_range [2000, 2099], 100 rows in one call (the floor)", Median(() => Ns(10000, () =>
            {
                UIntPtr got;
                for (int r = 0; r < 10000; r++)
                    sink += Native.drydb_range(traw, lo, (UIntPtr)8, Native.INCLUSIVE, hi, (UIntPtr)8, Native.INCLUSIVE, 0, (UIntPtr)128, ks, kls, vs, vls, &got);
            })));
            Report("Table.ReadRange(2000L, 2099L, max 128) zero-copy, last byte of each value read, per 100 rows", Median(() => Ns(10000, () =>
            {
                for (int r = 0; r < 10000; r++)
                {
                    int m = t.ReadRange(2000L, 2099L, false, 128, ks, kls, vs, vls);
                    for (int i = 0; i < m; i++) sink += vs[i][(long)(ulong)vls[i] - 1];
                }
            })));
            Report("Table.ReadRange(2000L, 2099L, max 128) reverse, per 100 rows", Median(() => Ns(10000, () =>
            {
                for (int r = 0; r < 10000; r++) sink += t.ReadRange(2000L, 2099L, true, 128, ks, kls, vs, vls);
            })));
        }

        static IntPtr GetRawCursor(Cursor c)
        {
            var f = typeof(Cursor).GetField("h", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance);
            return ((CursorHandle)f.GetValue(c)).Raw;
        }

        static void Report(string what, double ns) { Console.WriteLine("{0,10:F1} ns  {1}", ns, what); }
    }
}
