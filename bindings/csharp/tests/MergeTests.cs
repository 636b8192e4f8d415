// MergeTests.cs - rebuild by merge (DatabaseBuilder.Merge): random changes
// against a full rebuild of the same final rows, a computed index re-supplied,
// the refusals, and a base disposed under its merge builder.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class MergeTests
    {
        // The computed index "first": a value's first byte.
        static byte[] First(byte[] k, byte[] v) { return new[] { v[0] }; }
        // The explicit index "len": the value's length.
        static byte[] Len(byte[] v) { return Keys.Int64(v.Length); }

        static string Tmp(string name) { return System.IO.Path.Combine(Fx.Dir, "merge-" + name + ".drydb"); }

        static void BuildFull(string path, SortedDictionary<long, byte[]> rows, Compression comp)
        {
            using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 1024 }))
            {
                b.SetMeta("m", "1");
                var t = b.CreateTable("t", KeyKind.Int64, new TableOptions { Compression = comp });
                t.CreateIndex("first", KeyKind.Bytes, First);
                var len = t.CreateIndex("len", KeyKind.Int64);
                b.CreateTable("u", KeyKind.String).Append("a", Fx.B("b"));
                foreach (var kv in rows) { t.Append(kv.Key, kv.Value); len.Add(Len(kv.Value), Keys.Int64(kv.Key)); }
                b.Build(path);
            }
        }

        internal static List<string> Walk(Cursor c, bool index)
        {
            var got = new List<string>();
            using (c)
                while (c.Next())
                    got.Add(Keys.ToHex(c.Key) + "=" + Keys.ToHex(c.Value) + (index ? "@" + Keys.ToHex(c.PrimaryKey) : ""));
            return got;
        }

        static List<string> Contents(string path)
        {
            using (var db = Database.Open(path))
            {
                db.Verify();
                var t = db.GetTable("t");
                var all = Walk(t.OpenCursor(), false);
                all.AddRange(Walk(db.GetTable("u").OpenCursor(), false));
                all.AddRange(Walk(t.Index("first").OpenCursor(), true));
                all.AddRange(Walk(t.Index("len").OpenCursor(), true));
                all.Add(db.GetMeta("m"));
                return all;
            }
        }

        static byte[] Val(Random r, int max) { return Fx.B(new string((char)('a' + r.Next(6)), 1 + r.Next(max))); }

        void MergeVsFull(string name, double del, double ups, bool firstLast, Compression comp)
        {
            var r = new Random(11);
            var rows = new SortedDictionary<long, byte[]>();
            for (long k = 1; k < 3000; k += 2) rows[k] = Val(r, 20);
            string basePath = Tmp(name + "-base"), merged = Tmp(name + "-merged"), full = Tmp(name + "-full");
            BuildFull(basePath, rows, comp);
            using (var db = Database.Open(basePath))
            using (var b = DatabaseBuilder.Merge(db))
            {
                var t = b.MergeTable("t");
                t.MergeIndex("first", First);
                var len = t.MergeIndex("len");
                for (long k = 0; k <= 3000; k++)
                {
                    double x = r.NextDouble();
                    if (firstLast && (k == 0 || k == 3000)) x = 1.0 - ups / 2;
                    if (x < del) { t.Delete(k); rows.Remove(k); }
                    else if (x > 1.0 - ups)
                    {
                        var v = Val(r, 30);
                        t.Append(k, v);
                        len.Add(Len(v), Keys.Int64(k));
                        rows[k] = v;
                    }
                }
                b.Build(merged);
            }
            BuildFull(full, rows, comp);
            var m = Contents(merged);
            var f = Contents(full);
            Assert.Equal(f.Count, m.Count, name + ": entries");
            for (int i = 0; i < f.Count; i++) Assert.Equal(f[i], m[i], name + ": entry " + i);
        }

        [Test] public void FewChanges() { MergeVsFull("few", 0.01, 0.01, false, Compression.None); }
        [Test] public void HalfChangedNewFirstAndLast() { MergeVsFull("half", 0.25, 0.25, true, Compression.None); }
        [Test] public void EveryRowDeleted() { MergeVsFull("all", 1.0, 0, false, Compression.None); }
        [Test] public void ZstdBase() { MergeVsFull("zstd", 0.1, 0.2, true, Compression.Zstd); }

        static Database Base(string name)
        {
            var rows = new SortedDictionary<long, byte[]>();
            for (long k = 0; k < 10; k++) rows[k] = Fx.B("v" + k);
            BuildFull(Tmp(name), rows, Compression.None);
            return Database.Open(Tmp(name));
        }

        [Test]
        public void KeyChangedTwiceIsRefused()
        {
            var cases = new[] { new { ops = "aa", want = Status.Duplicate }, new { ops = "ad", want = Status.Invalid }, new { ops = "da", want = Status.Invalid } };
            using (var db = Base("twice"))
                foreach (var c in cases)
                    using (var b = DatabaseBuilder.Merge(db))
                    {
                        var t = b.MergeTable("t");
                        foreach (var op in c.ops)
                            if (op == 'a') t.Append(3L, Fx.B("new")); else t.Delete(3L);
                        Assert.Status(c.want, () => b.BuildToMemory(), c.ops);
                    }
        }

        [Test]
        public void Refusals()
        {
            using (var db = Base("refusals"))
            using (var b = DatabaseBuilder.Merge(db))
            {
                Assert.Status(Status.NoTable, () => b.MergeTable("nope"));
                var t = b.MergeTable("t");
                Assert.Status(Status.NoIndex, () => t.MergeIndex("nope"));
                Assert.Status(Status.Invalid, () => t.CreateIndex("new", KeyKind.String));
                Assert.Throws<ArgumentException>(() => t.Delete("a string key"), "key kind");
            }
            using (var plain = new DatabaseBuilder())
            {
                Assert.Throws<InvalidOperationException>(() => plain.MergeTable("t"));
                var t = plain.CreateTable("t", KeyKind.Bytes);
                Assert.Throws<InvalidOperationException>(() => t.MergeIndex("x"));
                Assert.Status(Status.Invalid, () => t.Delete(Fx.B("k")));
            }
            Assert.Throws<ArgumentNullException>(() => DatabaseBuilder.Merge(null));
        }

        [Test]
        public void BaseDisposedUnderTheBuilder()
        {
            var db = Base("disposed");
            string outPath = Tmp("disposed-out");
            using (var b = DatabaseBuilder.Merge(db))
            {
                var t = b.MergeTable("t");
                t.Append(100L, Fx.B("x"));
                db.Dispose();
                Assert.Throws<ObjectDisposedException>(() => t.Delete(1L));
                Assert.Throws<ObjectDisposedException>(() => b.Build(outPath));
            }
            Assert.False(File.Exists(outPath), "nothing written");
            Assert.Throws<ObjectDisposedException>(() => DatabaseBuilder.Merge(db));
        }
    }
}
