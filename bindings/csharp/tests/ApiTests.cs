// ApiTests.cs - every public member and its errors.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class DatabaseTests : IDisposable
    {
        readonly Database db = Fx.Open();
        public void Dispose() { db.Dispose(); }

        [Test]
        public void Version()
        {
            Assert.Equal("0.1.0".Split('.')[0], Database.LibraryVersion.Split('.')[0], "major");
            Assert.True(Database.LibraryVersion.Count(c => c == '.') == 2, "MAJOR.MINOR.PATCH");
        }

        [Test]
        public void TablesAndInfo()
        {
            var names = db.Tables;
            foreach (var n in new[] { "items", "words", "u64", "floats", "uuids", "ulids", "pairs", "blobs", "typed" })
                Assert.True(names.Contains(n), "table " + n + " listed");
            Assert.Equal(9, names.Count, "table count");
            var info = db.Info;
            Assert.Equal(9L, info.TableCount, "info.TableCount");
            Assert.Equal(4096, info.PageSize, "page size");
            Assert.True(info.FileSize > 0 && info.FormatVersion > 0, "file size, format");
            Assert.True(Math.Abs((DateTime.UtcNow - info.CreatedUtc).TotalHours) < 2, "created recently: " + info.CreatedUtc);
            Assert.Equal(16, info.BuildId.Length, "build id");
            Assert.True(db.HasTable("items") && !db.HasTable("nope"), "HasTable");
            var t = db.GetTable("items");
            Assert.True(ReferenceEquals(t, db.GetTable("items")), "same Table object");
            Assert.Equal(KeyKind.Int64, t.KeyKind, "kind");
            var ti = t.Info;
            Assert.Equal((long)N, ti.Rows, "rows");
            Assert.Equal(3, ti.IndexCount, "indexes");
            var ixNames = t.Indexes;
            Assert.Equal(3, ixNames.Count, "index names");
            for (int i = 1; i < ixNames.Count; i++)
                Assert.True(string.CompareOrdinal(ixNames[i - 1], ixNames[i]) < 0, "index names sorted");
            foreach (var n in ixNames) t.Index(n); // every listed name opens
            Assert.Equal(Compression.None, ti.Compression, "compression");
            Assert.Equal(Compression.Zstd, db.GetTable("words").Info.Compression, "words zstd");
            var pi = db.GetTable("pairs").Info;
            Assert.Equal(KeyKind.Composite, pi.KeyKind, "pairs kind");
            Assert.True(pi.Parts.SequenceEqual(new[] { KeyKind.String, KeyKind.Int64 }), "pairs parts");
            Assert.Equal("items", t.Name, "name");
            Assert.True(t.ToString().Contains("items"), "ToString");
            Assert.True(ReferenceEquals(db, t.Database), "Database");
        }

        [Test]
        public void MetaVerifyCache()
        {
            Assert.Equal("csharp-tests", db.GetMeta("source"), "meta");
            Assert.Equal(null, db.GetMeta("absent"), "absent meta");
            byte[] v;
            Assert.False(db.TryGetMeta(new byte[0], out v), "empty meta key");
            Assert.Throws<ArgumentNullException>(() => db.TryGetMeta(null, out v));
            db.Verify();
            db.GetTable("words").Get("w00001");
            var cs = db.CacheStats;
            Assert.True(cs.Hits + cs.Misses > 0, "cache used by zstd table");
        }

        [Test]
        public void OpenErrors()
        {
            Assert.Throws<ArgumentNullException>(() => Database.Open(null));
            Assert.Throws<ArgumentException>(() => Database.Open(""));
            Assert.Throws<ArgumentException>(() => Database.Open(Fx.Path, new DatabaseOptions { CacheBytes = -1 }));
            Assert.Throws<ArgumentException>(() => Database.Open("a\0b"));
            Assert.Status(Status.IO, () => Database.Open(System.IO.Path.Combine(Dir, "missing.drydb")), "missing file");
            var junk = System.IO.Path.Combine(Dir, "junk.drydb");
            File.WriteAllBytes(junk, Encoding.ASCII.GetBytes(new string('x', 10000)));
            var e = Assert.Throws<DryDBException>(() => Database.Open(junk), "junk file");
            Assert.True(((DryDBException)e).Code == Status.Corrupt || ((DryDBException)e).Code == Status.Version, "junk: corrupt " + e.Message);
            Assert.True(((DryDBException)e).Detail.Length > 0 && e.Message.Contains("drydb"), "message carries the native detail: " + e.Message);
            File.WriteAllBytes(junk, new byte[0]);
            Assert.Throws<DryDBException>(() => Database.Open(junk), "empty file");
            Assert.Throws<ArgumentNullException>(() => Database.OpenMemory(null));
            Assert.Throws<DryDBException>(() => Database.OpenMemory(new byte[100]), "junk image");
            Assert.Status(Status.NoTable, () => db.GetTable("nope"));
            Assert.Throws<ArgumentNullException>(() => db.GetTable(null));
            using (var v = Database.Open(Fx.Path, new DatabaseOptions { Verify = true, CacheBytes = 1 << 20 }))
                Assert.Equal((long)N, v.GetTable("items").Count(), "verify-open");
        }

        [Test]
        public void CorruptedFileIsReported()
        {
            var copy = System.IO.Path.Combine(Dir, "corrupt.drydb");
            var bytes = File.ReadAllBytes(Fx.Path);
            for (int i = 4096 * 2; i < bytes.Length - 4096; i += 4096) bytes[i + 100] ^= 0x5a;
            File.WriteAllBytes(copy, bytes);
            try
            {
                using (var d = Database.Open(copy))
                {
                    Assert.Status(Status.Corrupt, () => d.Verify(), "Verify");
                    // reads of damaged pages fail cleanly (or succeed on intact ones): never crash
                    int errors = 0;
                    try { foreach (var n in d.Tables) foreach (var kv in d.GetTable(n).All()) { } }
                    catch (DryDBException) { errors++; }
                    Assert.True(errors >= 0, "");
                }
            }
            catch (DryDBException e) { Assert.True(e.Code == Status.Corrupt, "open of corrupt file: " + e.Code); }
            Assert.Status(Status.Corrupt, () => Database.Open(copy, new DatabaseOptions { Verify = true }).Dispose(), "open with Verify");
        }

        [Test]
        public void Knobs()
        {
            long old = Database.SetMemoryLimit(-1);
            Assert.True(old > 0, "memory limit read");
            Assert.Equal(old, Database.SetMemoryLimit(old), "memory limit set");
            int gc = Database.SetGCPercent(100);
            Assert.Equal(100, Database.SetGCPercent(gc), "gc percent");
        }
    }

    [TestClass]
    public sealed class TableTests : IDisposable
    {
        readonly Database db = Fx.Open();
        readonly Table items;
        public TableTests() { items = db.GetTable("items"); }
        public void Dispose() { db.Dispose(); }

        [Test]
        public void TryGetTyped()
        {
            byte[] v;
            for (int i = 0; i < N; i += 97)
            {
                long k = ItemKey(i);
                Assert.True(items.TryGet(k, out v), "found " + k);
                Assert.Str(ItemValue(k), v, "value " + k);
                Assert.Str(ItemValue(k), items.Get(Keys.Int64(k)), "Get(bytes)");
            }
            Assert.False(items.TryGet(1L, out v), "odd key absent");
            Assert.True(v == null, "null when absent");
            Assert.Equal(null, items.Get(-2L), "Get absent");
            Assert.False(items.TryGet(long.MinValue, out v) || items.TryGet(long.MaxValue, out v), "extremes");
            Assert.True(items.ContainsKey(Keys.Int64(0)), "ContainsKey");

            var words = db.GetTable("words");
            Assert.Str("w00042w00042w00042", words.Get("w00042"), "string key, zstd");
            Assert.Str("empty-key", words.Get(""), "empty string key");
            Assert.Str("umlaut", words.Get("über"), "utf-8 key");
            Assert.Equal(null, words.Get("w99999"), "absent string");

            var u = db.GetTable("u64");
            Assert.Str("u" + ulong.MaxValue, u.Get(ulong.MaxValue), "ulong max");
            Assert.Str("u0", u.Get(0UL), "ulong 0");
            var f = db.GetTable("floats");
            foreach (var x in Floats) Assert.Str("f" + x.ToString("R"), f.Get(x), "float " + x);
            Assert.Str("f0", f.Get(-0.0), "-0 finds +0");
            Assert.Throws<ArgumentException>(() => f.Get(double.NaN), "NaN key");
            var g = db.GetTable("uuids");
            for (int i = 0; i < Guids.Length; i++) Assert.Str("g" + i, g.Get(Guids[i]), "guid " + i);
            Assert.Str("g3", g.Get(Keys.Uuid(Guids[3])), "guid as RFC bytes");
            var ul = db.GetTable("ulids");
            Assert.Str("ulid-1", ul.Get(Keys.UlidFromString("01ARZ3NDEKTSV4RRFFQ69G5FAV")), "ulid");
            var pairs = db.GetTable("pairs");
            Assert.Str("a\0b:-3", pairs.Get(Keys.Composite().Add("a\0b").Add(-3L)), "composite");
            var blobs = db.GetTable("blobs");
            Assert.Str("empty", blobs.Get(new byte[0]), "empty bytes key");
            Assert.Bytes(Big(), blobs.Get(new byte[] { 1 }), "200 KiB value");
            Assert.Bytes(new byte[0], blobs.Get(new byte[] { 0xff }), "empty value");
        }

        [Test]
        public unsafe void PointerOverloads()
        {
            byte* k = stackalloc byte[8];
            Keys.PutInt64(84, k);
            byte[] v;
            Assert.True(items.TryGet(k, 8, out v), "pointer TryGet");
            Assert.Str("item-84", v, "pointer value");
            var dest = new byte[64];
            int n = items.TryGet(k, 8, dest);
            Assert.Equal(7, n, "length into dest");
            Assert.Str("item-84", dest.Take(n).ToArray(), "dest");
            Assert.Equal(7, items.TryGet(k, 8, new byte[3]), "too small: length only");
            Keys.PutInt64(85, k);
            Assert.Equal(-1, items.TryGet(k, 8, dest), "absent");
            Assert.Throws<ArgumentException>(() => { byte[] x; items.TryGet(null, 3, out x); }, "null pointer with length");
            Assert.Throws<ArgumentException>(() => { byte[] x; byte* kk = stackalloc byte[1]; items.TryGet(kk, -1, out x); }, "negative length");
            Assert.Throws<ArgumentNullException>(() => { byte* kk = stackalloc byte[1]; items.TryGet(kk, 1, null); });
        }

        [Test]
        public void ArgumentAndKeyErrors()
        {
            byte[] v;
            Assert.Throws<ArgumentNullException>(() => items.TryGet((byte[])null, out v));
            Assert.Throws<ArgumentNullException>(() => db.GetTable("words").TryGet((string)null, out v));
            Assert.Throws<ArgumentException>(() => items.TryGet("x", out v), "string on int64 table");
            Assert.Throws<ArgumentException>(() => items.TryGet(ulong.MaxValue, out v), "ulong past int64 on int64 table");
            Assert.Throws<ArgumentException>(() => items.TryGet(1.0, out v), "double on int64 table");
            Assert.Throws<ArgumentException>(() => items.TryGet(Guid.Empty, out v), "guid on int64 table");
            Assert.Throws<ArgumentException>(() => db.GetTable("words").TryGet(1L, out v), "long on string table");
            var e = Assert.Status(Status.BadKey, () => items.TryGet(new byte[3], out v), "3-byte key on int64 table");
            Assert.Equal(9, e.NativeCode, "native code");
            Assert.True(e.Message.Length > 0, "message");
            Assert.Status(Status.BadKey, () => db.GetTable("uuids").Get(new byte[15]), "15-byte uuid");
            Assert.Throws<ArgumentException>(() => db.GetTable("words").Get("\ud800"), "lone surrogate");
            Assert.Throws<ArgumentOutOfRangeException>(() => items.At(-1));
            Assert.Throws<ArgumentNullException>(() => items.Rank((byte[])null));
            Assert.Throws<ArgumentNullException>(() => items.Prefix((byte[])null));
            Assert.Throws<ArgumentNullException>(() => Bound.Inclusive((byte[])null));
            Assert.Equal((long)N, items.Count(default(Bound), Bound.Unbounded), "default(Bound) is unbounded");
        }

        [Test]
        public void GetMany()
        {
            var keys = new List<long>();
            for (int i = -5; i < 700; i++) keys.Add(i);
            var r = items.GetMany(keys);
            Assert.Equal(keys.Count, r.Length, "length");
            for (int i = 0; i < keys.Count; i++)
            {
                long k = keys[i];
                if (k >= 0 && k % 2 == 0) Assert.Str(ItemValue(k), r[i], "key " + k);
                else Assert.True(r[i] == null, "absent " + k);
            }
            var rb = items.GetMany(new List<byte[]> { Keys.Int64(4), Keys.Int64(5), Keys.Int64(6) });
            Assert.Str("item-4", rb[0], "bytes 0"); Assert.True(rb[1] == null, "bytes 1"); Assert.Str("item-6", rb[2], "bytes 2");
            Assert.Equal(0, items.GetMany(new long[0]).Length, "empty batch");
            var ws = db.GetTable("words").GetMany(new[] { "w00001", "zzz", "", "w02999" });
            Assert.Str("w00001w00001w00001", ws[0], "w1"); Assert.True(ws[1] == null, "zzz"); Assert.Str("empty-key", ws[2], "empty"); Assert.Str("w02999w02999w02999", ws[3], "last");
            var us = db.GetTable("u64").GetMany(new[] { 1UL, 2UL, ulong.MaxValue });
            Assert.Str("u1", us[0], "u1"); Assert.True(us[1] == null, "u2"); Assert.Str("u" + ulong.MaxValue, us[2], "umax");
            Assert.Throws<ArgumentException>(() => items.GetMany(new List<byte[]> { null }));
            Assert.Throws<ArgumentException>(() => items.GetMany(new[] { "a" }), "strings on int64 table");
            Assert.Status(Status.BadKey, () => items.GetMany(new List<byte[]> { new byte[2] }), "bad key in batch");
            var bl = db.GetTable("blobs").GetMany(new List<byte[]> { new byte[] { 1 }, new byte[0] });
            Assert.Bytes(Big(), bl[0], "big in batch"); Assert.Str("empty", bl[1], "empty key in batch");
        }

        [Test]
        public void CountRankAt()
        {
            Assert.Equal((long)N, items.Count(), "all");
            Assert.Equal(50L, items.Count(0L, 100L), "[0,100)");
            Assert.Equal(51L, items.Count(Bound.Inclusive(0L), Bound.Inclusive(100L)), "[0,100]");
            Assert.Equal(50L, items.Count(Bound.Exclusive(0L), Bound.Inclusive(100L)), "(0,100]");
            Assert.Equal(49L, items.Count(Bound.Exclusive(0L), Bound.Exclusive(100L)), "(0,100)");
            Assert.Equal(50L, items.Count(Bound.Unbounded, Bound.Exclusive(100L)), "(-inf,100)");
            Assert.Equal((long)N - 1, items.Count(Bound.Exclusive(0L), Bound.Unbounded), "(0,inf)");
            Assert.Equal(0L, items.Count(100L, 0L), "empty (lo > hi)");
            Assert.Equal(50L, items.Count(Keys.Int64(0), Keys.Int64(100)), "bytes");
            Assert.Equal((long)N, items.Count((byte[])null, null), "null = unbounded");
            Assert.Equal(3002L, db.GetTable("words").Count(), "words");
            Assert.Equal(3001L, db.GetTable("words").Count(Bound.Exclusive(new byte[0]), Bound.Unbounded), "empty key is a real key");
            Assert.Equal(9L, db.GetTable("words").Count("w00000", "w00009"), "string count");
            Assert.Equal(2L, db.GetTable("u64").Count(0UL, 2UL), "ulong count");
            Assert.Equal(5L, db.GetTable("floats").Count(double.NegativeInfinity, -0.0), "float count (-0 is 0, excluded)");
            Assert.Equal(6L, db.GetTable("floats").Count(double.NegativeInfinity, 5e-324), "float count");
            Assert.Equal(0L, items.Rank(0L), "rank 0");
            Assert.Equal(50L, items.Rank(100L), "rank 100");
            Assert.Equal(51L, items.Rank(101L), "rank of absent key");
            Assert.Equal((long)N, items.Rank(long.MaxValue), "rank max");
            Assert.Equal(1L, db.GetTable("words").Rank("\u0001"), "string rank");
            Assert.Equal(1L, db.GetTable("u64").Rank(1UL), "ulong rank");
            Assert.Equal(5L, db.GetTable("floats").Rank(0.0), "float rank");
            var kv = items.At(123);
            Assert.Equal(246L, Keys.ToInt64(kv.Key), "At key");
            Assert.Str("item-246", kv.Value, "At value");
            byte[] k, v;
            Assert.False(items.TryGetAt(N, out k, out v), "past end");
            Assert.Throws<ArgumentOutOfRangeException>(() => items.At(N));
            Assert.True(db.GetTable("words").TryGetAt(0, out k, out v) && k.Length == 0, "row 0 of words is the empty key");
        }

        static List<long> Ks(IEnumerable<KeyValuePair<byte[], byte[]>> e)
        {
            var r = new List<long>();
            foreach (var kv in e) { long k = Keys.ToInt64(kv.Key); Assert.Str(ItemValue(k), kv.Value, "range value"); r.Add(k); }
            return r;
        }

        [Test]
        public void Ranges()
        {
            Assert.True(Ks(items.Range(10L, 20L)).SequenceEqual(new long[] { 10, 12, 14, 16, 18 }), "[10,20)");
            Assert.True(Ks(items.Range(10L, 20L, reverse: true)).SequenceEqual(new long[] { 18, 16, 14, 12, 10 }), "reverse");
            Assert.True(Ks(items.Range(Bound.Inclusive(10L), Bound.Inclusive(20L))).SequenceEqual(new long[] { 10, 12, 14, 16, 18, 20 }), "[10,20]");
            Assert.True(Ks(items.Range(Bound.Exclusive(10L), Bound.Exclusive(20L))).SequenceEqual(new long[] { 12, 14, 16, 18 }), "(10,20)");
            Assert.True(Ks(items.Range(Bound.Exclusive(9L), Bound.Exclusive(11L))).SequenceEqual(new long[] { 10 }), "(9,11)");
            Assert.Equal(0, Ks(items.Range(11L, 11L)).Count, "absent single");
            var all = Ks(items.All());
            Assert.Equal(N, all.Count, "all count");
            for (int i = 0; i < N; i++) Assert.Equal(ItemKey(i), all[i], "order");
            var rev = Ks(items.All(reverse: true));
            Assert.Equal(N, rev.Count, "all reverse");
            Assert.Equal(ItemKey(N - 1), rev[0], "reverse first");
            // every start in the gap between pages and at page ends: walk with exclusive starts
            for (long s = 0; s < 2 * N; s += 251)
            {
                var got = Ks(items.Range(Bound.Exclusive(s), Bound.Inclusive(s + 40)));
                var want = Enumerable.Range(0, N).Select(ItemKey).Where(x => x > s && x <= s + 40).ToList();
                Assert.True(got.SequenceEqual(want), "exclusive start " + s);
            }
            Assert.Equal(N, Ks(items.Range((byte[])null, null)).Count, "null bounds");
            // bounds are keys: the empty key is none of an int64 table's
            Assert.Status(Status.BadKey, () => Ks(items.Range(Bound.Exclusive(new byte[0]), Bound.Unbounded)), "the empty key as an int64 bound");
            // abandon an enumeration early: the cursor is freed by Dispose of the enumerator
            foreach (var kv in items.All()) break;
            using (var en = items.All().GetEnumerator()) { en.MoveNext(); }
            // words: string ranges, prefix, compressed pages
            var words = db.GetTable("words");
            Assert.Equal(9, words.Range("w00100", "w00109").Count(), "string range");
            Assert.Equal(100, words.Prefix("w001").Count(), "prefix");
            Assert.Equal("w00199", Fx.S(words.Prefix("w001", reverse: true).First().Key), "reverse prefix");
            Assert.Equal(3002, words.Prefix(new byte[0]).Count(), "empty prefix = all");
            Assert.Equal(0, words.Prefix("zz").Count(), "no match");
            Assert.Equal(3002, words.Range((string)null, (string)null).Count(), "string null bounds");
            var u = db.GetTable("u64").Range(Bound.Inclusive(1UL), Bound.Inclusive(ulong.MaxValue)).Select(kv => Keys.ToUInt64(kv.Key)).ToList();
            Assert.True(u.SequenceEqual(new ulong[] { 1, 255, 1UL << 40, ulong.MaxValue - 1, ulong.MaxValue }), "ulong range");
            var fl = db.GetTable("floats").Range(Bound.Inclusive(double.NegativeInfinity), Bound.Inclusive(double.PositiveInfinity)).Select(kv => Keys.ToFloat64(kv.Key)).ToList();
            Assert.True(fl.SequenceEqual(Floats), "float order");
            // GUIDs sort in RFC 4122 byte order, not .NET's mixed-endian order
            var gs = db.GetTable("uuids").All().Select(kv => Keys.ToGuid(kv.Key)).ToList();
            var want2 = Guids.OrderBy(x => Keys.ToHex(Keys.Uuid(x)), StringComparer.Ordinal).ToList();
            Assert.True(gs.SequenceEqual(want2), "guid order");
            Assert.True(gs.SequenceEqual(Guids.OrderBy(x => x.ToString(), StringComparer.Ordinal)), "RFC order = text order");
            // composite: prefix by first part
            var pairs = db.GetTable("pairs");
            var ap = pairs.Prefix(Keys.Composite().Add("a")).Select(kv => Fx.S(kv.Value)).ToList();
            Assert.True(ap.SequenceEqual(new[] { "a:-3", "a:-2", "a:-1", "a:0", "a:1", "a:2" }), "composite prefix: " + string.Join(",", ap));
            var firsts = pairs.All().Select(kv => Fx.S(kv.Value)).Where(s => s.EndsWith(":-3")).ToList();
            Assert.True(firsts.SequenceEqual(new[] { ":-3", "a:-3", "a\0b:-3", "b:-3" }), "composite order");
            var bl = db.GetTable("blobs").All().Select(kv => Keys.ToHex(kv.Key)).ToList();
            Assert.True(bl.SequenceEqual(new[] { "", "00", "0000", "01", "ff" }), "bytes order");
        }

        [Test]
        public void TypedTables()
        {
            var t = db.GetTable("typed").WithSerializer<Item>(Item.Deserialize);
            Item it;
            Assert.True(t.TryGet(7L, out it) && it.Name == "n7" && it.Price == 10.5, "typed get");
            Assert.False(t.TryGet(700L, out it), "absent");
            Assert.Equal("n8", t[8L].Name, "indexer");
            Assert.Throws<KeyNotFoundException>(() => { var x = t[1000L]; });
            bool[] found;
            var many = t.GetMany(new long[] { 1, 1000, 3 }, out found);
            Assert.True(found[0] && !found[1] && found[2] && many[2].Name == "n3", "typed GetMany");
            Assert.True(t.Range(10L, 13L).Select(kv => kv.Value.Name).SequenceEqual(new[] { "n10", "n11", "n12" }), "typed range");
            Assert.Equal(100, t.All().Count(), "typed all");
            Assert.Equal(100L, t.Count(), "count");
            Assert.Equal("n5", t.GetAsync(5L).Result.Name, "typed async");
            Assert.Equal(null, t.GetAsync(500L).Result, "typed async absent");
            Assert.Equal(3, t.RangeAsync(Bound.Inclusive(0L), Bound.Exclusive(3L)).Result.Count, "typed range async");
            Assert.Equal(3L, t.CountAsync(Bound.Inclusive(0L), Bound.Exclusive(3L)).Result, "typed count async");
            Assert.Throws<ArgumentNullException>(() => db.GetTable("typed").WithSerializer<Item>(null));
        }

        [Test]
        public void AsyncTwins()
        {
            Assert.Str("item-10", items.GetAsync(10L).Result, "GetAsync");
            Assert.Equal(null, items.GetAsync(11L).Result, "GetAsync absent");
            Assert.Str("item-10", items.GetAsync(Keys.Int64(10)).Result, "GetAsync bytes");
            Assert.Str("empty-key", db.GetTable("words").GetAsync("").Result, "GetAsync string");
            Assert.Equal((long)N, items.CountAsync().Result, "CountAsync");
            Assert.Equal(5L, items.CountAsync(10L, 20L).Result, "CountAsync range");
            Assert.Equal(5L, items.CountAsync(Bound.Inclusive(10L), Bound.Exclusive(20L)).Result, "CountAsync bounds");
            Assert.Equal(5, items.RangeAsync(10L, 20L).Result.Count, "RangeAsync");
            Assert.Equal(6, items.RangeAsync(Bound.Inclusive(10L), Bound.Inclusive(20L), true).Result.Count, "RangeAsync bounds");
            Assert.Equal(100, db.GetTable("words").PrefixAsync(Fx.B("w002")).Result.Count, "PrefixAsync");
            Assert.Equal(2, items.GetManyAsync(new List<byte[]> { Keys.Int64(0), Keys.Int64(2) }).Result.Length, "GetManyAsync");
            var task = items.GetAsync(new byte[3]);
            Assert.True(task.IsFaulted && task.Exception.InnerException is DryDBException, "failure through the task");
            Assert.True(items.GetAsync("x").IsFaulted, "argument failure through the task");
        }
    }
}
