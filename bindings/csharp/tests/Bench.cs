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
                    Report("Count [1000, 8999], per call", Median(() => Ns(10000, () =>
                    {
                        for (int r = 0; r < 10000; r++) sink += t.Count(1000L, 8999L);
                    })));
                }
            }
            finally { File.Delete(path); }
            Console.WriteLine("({0} rows; sink {1})", n, sink & 1);
        }

        static IntPtr GetRaw(Table t)
        {
            var f = typeof(Table).GetField("th", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance);
            return (IntPtr)f.GetValue(t);
        }

        static void Report(string what, double ns) { Console.WriteLine("{0,10:F1} ns  {1}", ns, what); }
    }
}
