// SwapTests.cs - hot swap (Database.Refresh) under load, and its edge cases.
// A writer thread rebuilds the file every ~100 ms (the builder writes a
// temporary file and renames it over the path) while 5 reader threads run
// gets, batches, counts, ranges and cursor walks; one of them refreshes.
// Every value encodes the version that wrote it and the row set is a function
// of the version, so each answer is checked against the version that answered,
// which must lie between the versions current before and after the call.
// Afterwards the file's mappings are back to one. DRYDB_SWAP_SECONDS sets the
// load's length (default 2).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class SwapTests
    {
        const int NK = 600;

        static bool InSet(long k, long v) { return k >= 0 && k < NK && k % 5 != v % 5; }
        static byte[] Val(long k, long v) { return Fx.B(string.Format("v{0:D8} k{1:D8}", v, k)); }

        static long Dec(byte[] b, long k)
        {
            var parts = Fx.S(b).Split(' ');
            if (long.Parse(parts[1].Substring(1)) != k) throw new Exception("value of another key: " + Fx.S(b) + " for " + k);
            return long.Parse(parts[0].Substring(1));
        }

        static long CountOf(long v) { long n = 0; for (long k = 0; k < NK; k++) if (InSet(k, v)) n++; return n; }

        static void Build(string path, long v)
        {
            using (var b = new DatabaseBuilder())
            {
                b.SetMeta("version", v.ToString());
                foreach (var name in new[] { "t", "z", "even" })
                {
                    if (name == "even" && v % 2 != 0) continue;
                    var t = b.CreateTable(name, KeyKind.Int64,
                        new TableOptions { Compression = name == "z" ? Compression.Zstd : Compression.None });
                    for (long k = 0; k < NK; k++) if (InSet(k, v)) t.Append(k, Val(k, v));
                }
                b.Build(path);
            }
        }

        static long Ver(Database db) { return long.Parse(db.GetMeta("version")); }

        static int Mappings(string path)
        {
            return File.ReadAllLines("/proc/self/maps").Count(l => l.Contains(path));
        }

        static string Tmp(string name) { return System.IO.Path.Combine(Fx.Dir, "swap-" + name + ".drydb"); }

        static void NeedProc() { if (!File.Exists("/proc/self/maps")) throw new SkipException("needs /proc/self/maps"); }

        [Test]
        public void Load()
        {
            NeedProc();
            string path = Tmp("load");
            Build(path, 0);
            double seconds = 2;
            var env = Environment.GetEnvironmentVariable("DRYDB_SWAP_SECONDS");
            if (!string.IsNullOrEmpty(env)) seconds = double.Parse(env, System.Globalization.CultureInfo.InvariantCulture);
            var wrong = new List<string>();
            long answers = 0, written = 0;
            int stop = 0;
            using (var db = Database.Open(path))
            {
                Assert.Equal(1, Mappings(path), "mappings at open");
                Action<string, long, object, long, long> bad = (what, k, got, lo, hi) =>
                {
                    lock (wrong) wrong.Add(string.Format("{0} key {1}: version {2}, current {3}..{4}", what, k, got, lo, hi));
                };
                var writer = new Thread(() =>
                {
                    for (long v = 1; Volatile.Read(ref stop) == 0; v++)
                    {
                        Build(path, v);
                        Interlocked.Exchange(ref written, v);
                        Thread.Sleep(100);
                    }
                });
                var readers = Enumerable.Range(0, 5).Select(id => new Thread(() =>
                {
                    var rnd = new Random(id + 1);
                    var tabs = new[] { db.GetTable("t"), db.GetTable("z") };
                    long n = 0;
                    while (Volatile.Read(ref stop) == 0)
                    {
                        var t = tabs[n % 2];
                        if (id == 0 && n % 20 == 0) db.Refresh();
                        long k = rnd.Next(NK + 10);
                        long lo = Ver(db);
                        switch (rnd.Next(5))
                        {
                            case 0:
                            {
                                byte[] v;
                                bool found = t.TryGet(k, out v);
                                long hi = Ver(db);
                                if (found)
                                {
                                    long g = Dec(v, k);
                                    if (g < lo || g > hi || !InSet(k, g)) bad("get", k, g, lo, hi);
                                }
                                else
                                {
                                    bool ok = false;
                                    for (long x = lo; x <= hi; x++) ok |= !InSet(k, x);
                                    if (!ok) bad("get (missing)", k, null, lo, hi);
                                }
                                break;
                            }
                            case 1:
                            {
                                var ks = Enumerable.Range(0, 16).Select(j => k + j).ToList();
                                var vs = t.GetMany(ks);
                                long hi = Ver(db);
                                var seen = new HashSet<long>();
                                for (int j = 0; j < 16; j++) if (vs[j] != null) seen.Add(Dec(vs[j], ks[j]));
                                if (seen.Count > 1) bad("get_many (mixed)", k, string.Join(",", seen), lo, hi);
                                foreach (var g in seen)
                                    for (int j = 0; j < 16; j++)
                                        if (g < lo || g > hi || (vs[j] != null) != InSet(ks[j], g)) bad("get_many", ks[j], g, lo, hi);
                                break;
                            }
                            case 2:
                            {
                                long c = t.Count();
                                long hi = Ver(db);
                                bool ok = false;
                                for (long x = lo; x <= hi; x++) ok |= c == CountOf(x);
                                if (!ok) bad("count", -1, c, lo, hi);
                                break;
                            }
                            case 3:
                            {
                                // [k, k + 40): the enumeration reads 16 rows, then 32 (CHANGELOG: batches
                                // sized to what is consumed), so a refresh between its two calls moves the
                                // rest to the new version (docs/RELIABILITY.md, "Live data"). As Python's
                                // test: each row right for the version it came from, versions never go
                                // back, one version gives exactly its rows.
                                var rows = t.Range(k, k + 40).ToList();
                                long hi = Ver(db);
                                var keys = rows.Select(r => Keys.ToInt64(r.Key)).ToList();
                                var gs = rows.Select((r, j) => Dec(r.Value, keys[j])).ToList();
                                for (int j = 0; j < rows.Count; j++)
                                {
                                    if (keys[j] < k || keys[j] >= k + 40 || (j > 0 && (keys[j] <= keys[j - 1] || gs[j] < gs[j - 1])))
                                        bad("range (order) of " + t.Name, keys[j], gs[j], lo, hi);
                                    if (gs[j] < lo || gs[j] > hi || !InSet(keys[j], gs[j])) bad("range of " + t.Name, keys[j], gs[j], lo, hi);
                                }
                                if (gs.Distinct().Count() == 1)
                                {
                                    var want = Enumerable.Range(0, 40).Select(j => k + j).Where(x => InSet(x, gs[0])).ToList();
                                    if (!keys.SequenceEqual(want)) bad("range (rows) of " + t.Name, k, gs[0], lo, hi);
                                }
                                break;
                            }
                            default:
                            {
                                // a cursor walk in small steps: refreshes happen meanwhile
                                var got = new List<KeyValuePair<long, long>>();
                                using (var c = t.OpenCursor(Bound.Inclusive(Keys.Int64(k)), Bound.Exclusive(Keys.Int64(k + 200))))
                                    while (c.Next())
                                    {
                                        long kk = Keys.ToInt64(c.Key);
                                        got.Add(new KeyValuePair<long, long>(kk, Dec(c.Value, kk)));
                                        if (got.Count % 50 == 0) Thread.Sleep(1);
                                    }
                                long hi = Ver(db);
                                var seen = new HashSet<long>(got.Select(p => p.Value));
                                if (seen.Count > 1) bad("cursor (mixed)", k, string.Join(",", seen), lo, hi);
                                foreach (var g in seen)
                                {
                                    var want = Enumerable.Range(0, 200).Select(j => k + j).Where(x => InSet(x, g)).ToList();
                                    if (!got.Select(p => p.Key).SequenceEqual(want)) bad("cursor", k, g, lo, hi);
                                }
                                break;
                            }
                        }
                        n++;
                    }
                    Interlocked.Add(ref answers, n);
                })).ToList();
                writer.Start();
                foreach (var r in readers) r.Start();
                Thread.Sleep(TimeSpan.FromSeconds(seconds));
                Volatile.Write(ref stop, 1);
                writer.Join();
                foreach (var r in readers) r.Join();
                Assert.True(wrong.Count == 0, string.Join("\n", wrong.Take(10)));
                db.Refresh();
                Assert.Equal(Interlocked.Read(ref written), Ver(db), "last version");
                Assert.True(db.Version.Seq >= 2, "versions seen: " + db.Version.Seq);
                Assert.Equal(CountOf(written), db.GetTable("t").Info.Rows, "rows");
                // the readers exited with their holds: only the current file is mapped
                Assert.Equal(1, Mappings(path), "mappings after the load");
                Console.WriteLine("C# load: {0} s, {1} answers, {2} versions", seconds, answers, db.Version.Seq);
            }
            Assert.Equal(0, Mappings(path), "mappings after close");
        }

        [Test]
        public void BadFilesKeepTheVersion()
        {
            string path = Tmp("bad"), good = Tmp("good"), next = Tmp("bad-next");
            Build(path, 10);
            Build(good, 12);
            var data = File.ReadAllBytes(good);
            using (var db = Database.Open(path))
            {
                DatabaseVersion v0 = db.Version;
                Assert.Equal(0L, v0.Seq, "seq at open");
                Assert.False(db.Refresh(), "same file");
                var t = db.GetTable("t");
                var flipped = (byte[])data.Clone();
                flipped[flipped.Length - 10] ^= 0x40;
                var cases = new[]
                {
                    Tuple.Create(data.Take(data.Length / 2).ToArray(), Status.Corrupt),
                    Tuple.Create(new byte[0], Status.Corrupt),
                    Tuple.Create(flipped, Status.Corrupt),
                    Tuple.Create((byte[])null, Status.IO),
                };
                foreach (var c in cases)
                {
                    if (c.Item1 == null) File.Delete(path);
                    else { File.WriteAllBytes(next, c.Item1); Rename(next, path); }
                    var e = Assert.Status(c.Item2, () => db.Refresh(), "refresh to a bad file");
                    Assert.True(e.Message.Contains("keeps the version"), e.Message);
                    Assert.Equal(10L, Ver(db), "version kept");
                    byte[] v;
                    Assert.True(t.TryGet(1L, out v), "get after a failed refresh");
                    Assert.Equal(10L, Dec(v, 1), "value after a failed refresh");
                    Assert.Equal(0L, db.Version.Seq, "seq kept");
                }
                Rename(good, path);
                Assert.True(db.Refresh(), "refresh to a good file");
                Assert.Equal(12L, Ver(db), "new version");
                Assert.Equal(1L, db.Version.Seq, "seq");
                Assert.False(db.Version.BuildId.SequenceEqual(v0.BuildId), "build id changed");
            }
        }

        // File.Move cannot replace on Mono's profile: the rename(2) a builder does.
        static void Rename(string from, string to)
        {
            if (File.Exists(to)) File.Delete(to);
            File.Move(from, to);
        }

        [Test]
        public void VanishedTableAndCursors()
        {
            string path = Tmp("vanish");
            Build(path, 2);
            using (var db = Database.Open(path))
            {
                var t = db.GetTable("t");
                var even = db.GetTable("even");
                using (var c = t.OpenCursor())
                {
                    Assert.True(c.Next(), "first row");
                    Build(path, 3);
                    Assert.True(db.Refresh(), "refresh to 3");
                    Assert.Status(Status.NoTable, () => { byte[] v; even.TryGet(2L, out v); }, "vanished table");
                    Assert.Status(Status.NoTable, () => even.Count(), "vanished table count");
                    var keys = new List<long>();
                    do
                    {
                        long kk = Keys.ToInt64(c.Key);
                        Assert.Equal(2L, Dec(c.Value, kk), "cursor keeps its version");
                        keys.Add(kk);
                    } while (c.Next());
                    Assert.True(keys.SequenceEqual(Enumerable.Range(0, NK).Select(x => (long)x).Where(x => InSet(x, 2))), "cursor rows");
                }
                Assert.Equal(CountOf(3), t.Count(), "count of the new version");
                Build(path, 4);
                Assert.True(db.Refresh(), "refresh to 4");
                byte[] w;
                Assert.True(even.TryGet(2L, out w), "the table is back");
                Assert.Equal(4L, Dec(w, 2), "value of the returned table");
            }
            using (var db = Database.OpenMemory(File.ReadAllBytes(path)))
                Assert.Status(Status.Invalid, () => db.Refresh(), "memory database");
        }

        [Test]
        public void RefreshEvery()
        {
            string path = Tmp("every");
            Build(path, 1);
            using (var db = Database.Open(path))
            {
                db.RefreshEvery(5);
                Build(path, 2);
                var until = DateTime.UtcNow.AddSeconds(5);
                while (Ver(db) != 2 && DateTime.UtcNow < until) Thread.Sleep(10);
                Assert.Equal(2L, Ver(db), "automatic refresh");
                db.RefreshEvery(0);
                Build(path, 3);
                Thread.Sleep(20);
                Assert.Equal(2L, Ver(db), "automatic refresh off");
            }
        }

        [Test]
        public void DisposeRacesRefresh()
        {
            string path = Tmp("race");
            for (int round = 0; round < 5; round++)
            {
                Build(path, round);
                var db = Database.Open(path);
                var t = db.GetTable("t");
                var errors = new List<Exception>();
                Action<Action> loop = f =>
                {
                    try { for (;;) f(); }
                    catch (ObjectDisposedException) { }
                    catch (DryDBException e) when (e.Code == Status.Closed) { }
                    catch (Exception e) { lock (errors) errors.Add(e); }
                };
                var ths = new[]
                {
                    new Thread(() => loop(() => db.Refresh())),
                    new Thread(() => loop(() => { byte[] v; t.TryGet(3L, out v); })),
                };
                foreach (var th in ths) th.Start();
                Build(path, round + 100);
                Thread.Sleep(10);
                db.Dispose();
                foreach (var th in ths) th.Join();
                Assert.True(errors.Count == 0, string.Join("\n", errors));
            }
        }
    }
}
