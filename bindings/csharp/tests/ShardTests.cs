// ShardTests.cs - a sharded database (range shards and their manifest, written
// with Shards.WriteRangeManifest) opened with Database.Open reads as the same
// rows in one file: gets, batches, counts, ranks, n-th rows, ranges and
// cursors across every shard boundary both ways, an index merged across
// shards; a missing shard is named in the error; Refresh() follows a
// manifest rewritten over the open one.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class ShardTests
    {
        const int Rows = 2000;
        static readonly int[] Cuts = { 0, 600, 1300, 1301, Rows }; // one shard of a single row

        static string Tmp(string name) { return System.IO.Path.Combine(Fx.Dir, "shard-" + name); }

        // rows [from, to): key 3*i, value "v<i>"; index "mod": i % 5
        static void Build(string path, int from, int to)
        {
            using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 512 }))
            {
                var t = b.CreateTable("t", KeyKind.Int64);
                var ix = t.CreateIndex("mod", KeyKind.Int64);
                for (int i = from; i < to; i++)
                {
                    t.Append(3L * i, Fx.B("v" + i));
                    ix.Add(Keys.Int64(i % 5), Keys.Int64(3L * i));
                }
                b.Build(path);
            }
        }

        static string Manifest()
        {
            Build(Tmp("one.drydb"), 0, Rows);
            var names = new List<string>();
            for (int s = 0; s + 1 < Cuts.Length; s++)
            {
                names.Add("shard-p" + s + ".drydb");
                Build(Tmp("p" + s + ".drydb"), Cuts[s], Cuts[s + 1]);
            }
            Shards.WriteRangeManifest(Tmp("db.manifest"), names);
            return Tmp("db.manifest");
        }

        static List<string> Walk(Cursor c, bool back, bool index)
        {
            var got = new List<string>();
            using (c)
                while (back ? c.Prev() : c.Next())
                    got.Add(Keys.ToHex(c.Key) + "=" + Fx.S(c.Value) + (index ? "@" + Keys.ToHex(c.PrimaryKey) : ""));
            return got;
        }

        static string Pairs(IEnumerable<KeyValuePair<byte[], byte[]>> kvs)
        {
            return string.Join(",", kvs.Select(kv => Keys.ToHex(kv.Key) + "=" + Fx.S(kv.Value)));
        }

        [Test]
        public void ShardedReadsAsOneFile()
        {
            var man = Manifest();
            using (var one = Database.Open(Tmp("one.drydb")))
            using (var sh = Database.Open(man))
            {
                sh.Verify();
                Table a = one.GetTable("t"), b = sh.GetTable("t");
                Assert.Equal(a.Count(), b.Count(), "rows");
                var keys = new List<long>();
                for (long k = -2; k <= 3 * Rows + 1; k += 1) keys.Add(k);
                foreach (var k in keys)
                {
                    Assert.Equal(Fx.S(a.Get(k)), Fx.S(b.Get(k)), "get " + k);
                    Assert.Equal(a.Rank(k), b.Rank(k), "rank " + k);
                }
                var many = keys.Where(k => k % 13 == 0).ToList();
                Assert.Equal(string.Join(",", a.GetMany(many).Select(Fx.S)), string.Join(",", b.GetMany(many).Select(Fx.S)), "get many");
                for (long n = 0; n < Rows; n += 11)
                    Assert.Equal(Keys.ToHex(a.At(n).Key) + Fx.S(a.At(n).Value), Keys.ToHex(b.At(n).Key) + Fx.S(b.At(n).Value), "at " + n);
                int[] marks = { -1, 0, 599, 600, 601, 1299, 1300, 1301, 1302, 1999, 2000 };
                foreach (var x in marks)
                    foreach (var y in marks)
                    {
                        if (y < x) continue;
                        Bound lo = Bound.Inclusive(3L * x), hi = Bound.Exclusive(3L * y + 1);
                        string what = x + ".." + y;
                        Assert.Equal(a.Count(lo, hi), b.Count(lo, hi), "count " + what);
                        foreach (var back in new[] { false, true })
                        {
                            Assert.Equal(Pairs(a.Range(lo, hi, back)), Pairs(b.Range(lo, hi, back)), "range " + what);
                            Assert.Equal(string.Join(";", Walk(a.OpenCursor(lo, hi), back, false)), string.Join(";", Walk(b.OpenCursor(lo, hi), back, false)), "cursor " + what);
                        }
                    }
                SecondaryIndex ia = a.Index("mod"), ib = b.Index("mod");
                for (long m = 0; m < 6; m++)
                {
                    Assert.Equal(Fx.S(ia.Get(m)), Fx.S(ib.Get(m)), "index get " + m);
                    Assert.Equal(ia.Count(Bound.Inclusive(m), Bound.Inclusive(m)), ib.Count(Bound.Inclusive(m), Bound.Inclusive(m)), "index count " + m);
                }
                foreach (var back in new[] { false, true })
                    Assert.Equal(string.Join(";", Walk(ia.OpenCursor(), back, true)), string.Join(";", Walk(ib.OpenCursor(), back, true)), "index cursor");
            }
        }

        [Test]
        public void MissingShardIsNamed()
        {
            var man = Manifest();
            File.Delete(Tmp("p2.drydb"));
            using (var sh = Database.Open(man))
            {
                var t = sh.GetTable("t");
                Assert.Str("v1", t.Get(3L), "a shard that is there");
                var e = Assert.Status(Status.IO, () => t.Get(3L * 1300), "the missing shard");
                Assert.True(e.Message.Contains("shard 2 (shard-p2.drydb)"), e.Message);
            }
            Assert.Status(Status.Corrupt, () => Shards.WriteRangeManifest(Tmp("bad.manifest"), new[] { "shard-p1.drydb", "shard-p0.drydb" }), "shards out of order");
        }

        // New shards and a new manifest renamed over the old one: the reader
        // answers from the old shard set until Refresh(), then from the new.
        [Test]
        public void RefreshFollowsAManifest()
        {
            Build(Tmp("a0.drydb"), 0, 100);
            Build(Tmp("a1.drydb"), 100, 200);
            var man = Tmp("live.manifest");
            Shards.WriteRangeManifest(man, new[] { "shard-a0.drydb", "shard-a1.drydb" });
            using (var db = Database.Open(man))
            {
                var t = db.GetTable("t");
                Assert.Equal(200L, t.Count(), "old rows");
                Assert.False(db.Refresh(), "nothing changed yet");
                Build(Tmp("b0.drydb"), 0, 150);
                Build(Tmp("b1.drydb"), 150, 300);
                Shards.WriteRangeManifest(man, new[] { "shard-b0.drydb", "shard-b1.drydb" }); // atomic rename over the old one
                Assert.Equal(200L, t.Count(), "the old version until Refresh");
                Assert.True(t.Get(3L * 250) == null, "a new row before Refresh");
                Assert.Str("v150", t.At(150).Value, "the old version's row 150");
                Assert.True(db.Refresh(), "a new manifest");
                Assert.Equal(300L, t.Count(), "new rows");
                Assert.Str("v250", t.Get(3L * 250), "a new row after Refresh");
                Assert.Equal(20L, t.Count(3L * 140, 3L * 160), "a count across the new shards' boundary");
                db.Verify();
            }
        }

        // Hash shards (rows routed by FNV-1a-64 of the encoded key, computed
        // here from the published definition) read as one file; row numbers
        // are refused, and so are shards out of slot order.
        [Test]
        public void HashShards()
        {
            const int n = 3;
            var rows = new List<int>[n];
            for (int s = 0; s < n; s++) rows[s] = new List<int>();
            for (int i = 0; i < Rows; i++)
            {
                ulong h = 14695981039346656037;
                foreach (var b in Keys.Int64(3L * i)) h = (h ^ b) * 1099511628211;
                rows[(int)(h % n)].Add(i);
            }
            var names = new List<string>();
            for (int s = 0; s < n; s++)
            {
                names.Add("shard-h" + s + ".drydb");
                using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 512 }))
                {
                    var t = b.CreateTable("t", KeyKind.Int64);
                    foreach (var i in rows[s]) t.Append(3L * i, Fx.B("v" + i));
                    b.Build(Tmp("h" + s + ".drydb"));
                }
            }
            Assert.Status(Status.Invalid, () => Shards.WriteHashManifest(Tmp("bad.manifest"), new[] { names[1], names[0], names[2] }), "out of slot order");
            Shards.WriteHashManifest(Tmp("h.manifest"), names);
            using (var db = Database.Open(Tmp("h.manifest")))
            {
                var t = db.GetTable("t");
                Assert.Equal((long)Rows, t.Count(), "rows");
                for (int i = -1; i <= Rows; i++)
                {
                    var v = t.Get(3L * i);
                    Assert.True(i >= 0 && i < Rows ? v != null && Fx.S(v) == "v" + i : v == null, "get " + i);
                    Assert.True(t.Get(3L * i + 1) == null, "absent " + i);
                }
                Assert.Equal(20L, t.Count(3L * 140, 3L * 160), "a count");
                Assert.Equal(140L, t.Rank(3L * 140), "a rank");
                var e = Assert.Status(Status.Invalid, () => t.At(0), "At");
                Assert.True(e.Message.Contains("hash-partitioned"), e.Message);
                db.Verify();
            }
        }
    }
}
