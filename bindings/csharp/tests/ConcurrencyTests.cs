// ConcurrencyTests.cs - 8 threads on one database with every answer checked;
// a stress run of several threads while another forces garbage collections;
// Dispose racing with calls in flight; short-lived threads.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class ConcurrencyTests
    {
        static int Seconds(string env, int dflt)
        {
            int v; return int.TryParse(Environment.GetEnvironmentVariable(env), out v) ? v : dflt;
        }

        // One round of mixed calls, every answer checked; returns calls made.
        static long Round(Database db, Random rnd)
        {
            var items = db.GetTable("items");
            var words = db.GetTable("words");
            var cat = items.Index("by_category");
            long calls = 0;
            byte[] v;
            for (int i = 0; i < 200; i++)
            {
                long k = rnd.Next(-10, 2 * N + 10);
                bool there = k >= 0 && k < 2 * N && k % 2 == 0;
                if (items.TryGet(k, out v) != there) throw new Exception("TryGet presence " + k);
                if (there && Fx.S(v) != ItemValue(k)) throw new Exception("TryGet value " + k + ": " + Fx.S(v));
                calls++;
            }
            // compressed table: thread-owned buffers must not mix between threads
            for (int i = 0; i < 50; i++)
            {
                int w = rnd.Next(0, 3100);
                string key = "w" + w.ToString("D5");
                var got = words.Get(key);
                if (w < 3000 ? Fx.S(got) != key + key + key : got != null) throw new Exception("zstd get " + key);
                calls++;
            }
            var ks = Enumerable.Range(0, 64).Select(_ => (long)rnd.Next(0, 2 * N)).ToArray();
            var many = items.GetMany(ks);
            for (int i = 0; i < ks.Length; i++)
                if (ks[i] % 2 == 0 ? Fx.S(many[i]) != ItemValue(ks[i]) : many[i] != null) throw new Exception("GetMany " + ks[i]);
            calls++;
            long lo = rnd.Next(0, 2 * N), hi = lo + rnd.Next(0, 400);
            long want = Enumerable.Range(0, N).Select(ItemKey).LongCount(x => x >= lo && x < hi);
            if (items.Count(lo, hi) != want) throw new Exception("Count " + lo + ".." + hi);
            calls++;
            long n = 0, prev = -1;
            foreach (var kv in items.Range(lo, hi))
            {
                long kk = Keys.ToInt64(kv.Key);
                if (kk <= prev || kk < lo || kk > hi || Fx.S(kv.Value) != ItemValue(kk)) throw new Exception("Range row " + kk);
                prev = kk; n++;
            }
            if (n != want) throw new Exception("Range rows " + n + " want " + want);
            calls++;
            using (var c = items.OpenCursor(Bound.Inclusive(lo), Bound.Exclusive(hi)))
            {
                long m = 0;
                while (c.Next()) { if (c.KeyInt64 < lo || Fx.S(c.Value) != ItemValue(c.KeyInt64)) throw new Exception("cursor"); m++; }
                if (m != want) throw new Exception("cursor rows");
            }
            calls++;
            int r = rnd.Next(0, N);
            if (items.Rank(ItemKey(r)) != r) throw new Exception("Rank");
            if (Keys.ToInt64(items.At(r).Key) != ItemKey(r)) throw new Exception("At");
            byte[] pk;
            string cname = "c" + rnd.Next(0, Categories);
            if (!cat.TryGet(cname, out pk, out v) || Category(Keys.ToInt64(pk)) != cname || Fx.S(v) != ItemValue(Keys.ToInt64(pk))) throw new Exception("index get");
            calls += 3;
            return calls;
        }

        static void RunThreads(int threads, Func<int, long> body, out long total)
        {
            var errors = new List<Exception>();
            long sum = 0;
            var ts = Enumerable.Range(0, threads).Select(t => new Thread(() =>
            {
                try { Interlocked.Add(ref sum, body(t)); }
                catch (Exception e) { lock (errors) errors.Add(e); }
            })).ToList();
            ts.ForEach(t => t.Start());
            ts.ForEach(t => t.Join());
            total = sum;
            if (errors.Count > 0) throw new AggregateException(errors);
        }

        [Test]
        public void EightThreadsOneDatabase()
        {
            using (var db = Fx.Open())
            {
                long total;
                var sw = Stopwatch.StartNew();
                RunThreads(8, t =>
                {
                    var rnd = new Random(t * 7919);
                    long calls = 0;
                    for (int round = 0; round < 300; round++) calls += Round(db, rnd);
                    return calls;
                }, out total);
                Console.WriteLine("     8 threads: {0} checked calls in {1} ms", total, sw.ElapsedMilliseconds);
            }
        }

        [Test]
        public void StressWithForcedGC()
        {
            int seconds = Seconds("DRYDB_STRESS_SECONDS", 15);
            using (var db = Fx.Open())
            {
                int stop = 0;
                long gcs = 0;
                var gc = new Thread(() =>
                {
                    while (Volatile.Read(ref stop) == 0)
                    {
                        var junk = new byte[64][];
                        for (int i = 0; i < junk.Length; i++) junk[i] = new byte[1024];
                        GC.Collect();
                        GC.WaitForPendingFinalizers();
                        Interlocked.Increment(ref gcs);
                    }
                });
                gc.Start();
                var deadline = Stopwatch.StartNew();
                long total;
                try
                {
                    RunThreads(6, t =>
                    {
                        var rnd = new Random(t + 1);
                        long calls = 0;
                        while (deadline.Elapsed.TotalSeconds < seconds) calls += Round(db, rnd);
                        return calls;
                    }, out total);
                }
                finally { Volatile.Write(ref stop, 1); gc.Join(); }
                Console.WriteLine("     stress: 6 threads, {0} checked calls, {1} forced GCs in {2:F1} s", total, gcs, deadline.Elapsed.TotalSeconds);
                Assert.True(gcs > 10, "the GC thread ran");
            }
        }

        [Test]
        public void DisposeWhileCalling()
        {
            for (int rep = 0; rep < 10; rep++)
            {
                var db = Fx.Open();
                var started = new CountdownEvent(6);
                long ok = 0, disposed = 0;
                var errors = new List<Exception>();
                var ts = Enumerable.Range(0, 6).Select(t => new Thread(() =>
                {
                    var rnd = new Random(rep * 100 + t);
                    started.Signal();
                    try
                    {
                        while (true) { Round(db, rnd); Interlocked.Increment(ref ok); }
                    }
                    catch (ObjectDisposedException) { Interlocked.Increment(ref disposed); }
                    catch (Exception e) { lock (errors) errors.Add(e); }
                })).ToList();
                ts.ForEach(t => t.Start());
                started.Wait();
                Thread.Sleep(20 + rep * 5);
                db.Dispose();
                ts.ForEach(t => t.Join());
                if (errors.Count > 0) throw new AggregateException(errors);
                Assert.Equal(6L, disposed, "every thread ends with ObjectDisposedException");
            }
        }

        [Test]
        public void ManyShortLivedThreads()
        {
            using (var db = Fx.Open())
            {
                var t = db.GetTable("items");
                for (int batch = 0; batch < 10; batch++)
                {
                    long total;
                    RunThreads(20, i =>
                    {
                        byte[] v;
                        long k = ItemKey((batch * 20 + i) % N);
                        if (!t.TryGet(k, out v) || Fx.S(v) != ItemValue(k)) throw new Exception("first call on a new thread");
                        return 1;
                    }, out total);
                    Assert.Equal(20L, total, "calls");
                }
            }
        }
    }
}
