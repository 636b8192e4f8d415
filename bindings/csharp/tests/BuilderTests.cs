// BuilderTests.cs - the builder, its errors, and use after dispose.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class BuilderTests
    {
        static string P(string name) { return System.IO.Path.Combine(Fx.Dir, name); }

        [Test]
        public void BuildToMemoryAndOpenMemory()
        {
            byte[] image;
            using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 512, MemoryBudget = 1 << 20 }))
            {
                var t = b.CreateTable("t", KeyKind.String, new TableOptions { Compression = Compression.Zstd, Level = 3, Dictionary = true });
                for (int i = 0; i < 500; i++) t.Append("k" + i.ToString("D3"), Fx.B("value " + i));
                Assert.Equal(500L, t.RowsAppended, "RowsAppended");
                Assert.Equal("t", t.Name, "name");
                Assert.Equal(KeyKind.String, t.KeyKind, "kind");
                image = b.BuildToMemory();
                Assert.True(b.IsBuilt, "IsBuilt");
            }
            using (var db = Database.OpenMemory(image))
            {
                var t = db.GetTable("t");
                Assert.Equal(512, db.Info.PageSize, "page size");
                Assert.True(t.Info.Dictionary && t.Info.Level == 3, "dictionary flag, level");
                Assert.Str("value 321", t.Get("k321"), "get from memory image");
                Assert.Equal(500L, t.Count(), "count");
            }
        }

        [Test]
        public void HashIndexModes()
        {
            byte[] image;
            using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 512 }))
            {
                var auto = b.CreateTable("auto", KeyKind.String);
                var off = b.CreateTable("off", KeyKind.String, new TableOptions { Hash = false });
                var dense = b.CreateTable("dense", KeyKind.Int64);
                var on = b.CreateTable("on", KeyKind.Int64, new TableOptions { Hash = true });
                var ids = b.CreateTable("ids", KeyKind.Uuid);
                for (int i = 0; i < 3000; i++)
                {
                    auto.Append("k" + (i * 7).ToString("D6"), Fx.B("v" + i));
                    off.Append("k" + (i * 7).ToString("D6"), Fx.B("v" + i));
                    dense.Append((long)i, Fx.B("v" + i));
                    on.Append((long)i, Fx.B("v" + i));
                    ids.Append(new Guid(i, 7, 9, 1, 2, 3, 4, 5, 6, 7, 8), Fx.B("v" + i));
                }
                var z = b.CreateTable("z", KeyKind.String, new TableOptions { Compression = Compression.Zstd, Hash = true });
                var zauto = b.CreateTable("zauto", KeyKind.String, new TableOptions { Compression = Compression.Zstd });
                for (int i = 0; i < 3000; i++)
                {
                    z.Append("k" + (i * 7).ToString("D6"), Fx.B("v" + i));
                    zauto.Append("k" + (i * 7).ToString("D6"), Fx.B("v" + i));
                }
                image = b.BuildToMemory();
            }
            using (var db = Database.OpenMemory(image))
            {
                db.Verify();
                Assert.True(db.GetTable("auto").Info.Hashed && !db.GetTable("off").Info.Hashed, "string tables: auto, off");
                Assert.True(!db.GetTable("dense").Info.Hashed && db.GetTable("on").Info.Hashed, "dense ids: auto, on");
                Assert.True(db.GetTable("ids").Info.Hashed, "uuid table: auto");
                Assert.True(db.GetTable("z").Info.Hashed && !db.GetTable("zauto").Info.Hashed, "zstd tables: on, auto");
                foreach (var name in new[] { "auto", "off", "z", "zauto" })
                {
                    var t = db.GetTable(name);
                    for (int round = 0; round < 2; round++) // a compressed table: cold, then cached
                        for (int i = 0; i < 3000; i += 13) Assert.Str("v" + i, t.Get("k" + (i * 7).ToString("D6")), name + " get");
                    Assert.True(t.Get("k000001") == null, name + " absent key");
                }
                var on = db.GetTable("on");
                for (int i = 0; i < 3000; i += 13) Assert.Str("v" + i, on.Get((long)i), "on get");
                var ids = db.GetTable("ids");
                for (int i = 0; i < 3000; i += 13) Assert.Str("v" + i, ids.Get(new Guid(i, 7, 9, 1, 2, 3, 4, 5, 6, 7, 8)), "uuid get");
            }
        }

        [Test]
        public void TypedBuilderAndComposite()
        {
            var p = P("typed.drydb");
            using (var b = new DatabaseBuilder())
            {
                var t = b.CreateTable("t", KeyKind.Uuid).WithSerializer<Item>(Item.Serialize);
                var g = Guid.NewGuid();
                t.Append(g, new Item { Name = "x", Price = 1 });
                t.Append(Keys.Uuid(Guid.Empty), new Item { Name = "zero", Price = 0 });
                t.AppendMany(new[] { new KeyValuePair<byte[], Item>(Keys.Uuid(new Guid("ffffffff-ffff-ffff-ffff-ffffffffffff")), new Item { Name = "max", Price = 2 }) });
                Assert.Throws<ArgumentException>(() => t.Append(1L, new Item()), "long key on uuid table");
                var c = b.CreateTable("c", new[] { KeyKind.Int64, KeyKind.String });
                c.Append(Keys.Composite().Add(1L).Add("x"), Fx.B("1x"));
                var cix = c.CreateIndex("by_s", new[] { KeyKind.String });
                cix.Add(Keys.Composite().Add("x"), Keys.Composite().Add(1L).Add("x"));
                var f = b.CreateTable("f", KeyKind.Float64);
                f.Append(-0.0, Fx.B("zero"));
                var u = b.CreateTable("u", KeyKind.UInt64);
                u.Append(5UL, Fx.B("five"));
                var s = b.CreateTable("s", KeyKind.String);
                var six = s.CreateIndex("len", KeyKind.Int64, (k, v) => Keys.Int64(k.Length));
                s.Append("abc", Fx.B("3"));
                six.Add(99L, Keys.String("abc"));  // explicit entries mix with computed ones
                b.SetMeta(Fx.B("k"), Fx.B("v"));
                b.Build(p);
                using (var db = Database.Open(p))
                {
                    var tt = db.GetTable("t").WithSerializer<Item>(Item.Deserialize);
                    Item it; Assert.True(tt.TryGet(g, out it) && it.Name == "x", "typed guid");
                    Assert.Equal("max", tt.All().Last().Value.Name, "all-ones guid sorts last");
                    Assert.Str("1x", db.GetTable("c").Get(Keys.Composite().Add(1L).Add("x")), "composite");
                    Assert.Str("1x", db.GetTable("c").Index("by_s").Get(Keys.Composite().Add("x")), "composite index");
                    Assert.Str("zero", db.GetTable("f").Get(0.0), "-0 stored as 0");
                    Assert.Str("five", db.GetTable("u").Get(5UL), "uint64");
                    Assert.Equal(2L, db.GetTable("s").Index("len").Count(), "computed + explicit");
                    Assert.Str("3", db.GetTable("s").Index("len").Get(3L), "computed");
                    byte[] mv; Assert.True(db.TryGetMeta(Fx.B("k"), out mv) && Fx.S(mv) == "v", "meta");
                }
            }
        }

        [Test]
        public void Errors()
        {
            Assert.Throws<ArgumentException>(() => new DatabaseBuilder(new BuilderOptions { PageSize = 1000 }), "page size not a power of two");
            Assert.Throws<ArgumentException>(() => new DatabaseBuilder(new BuilderOptions { PageSize = -1 }));
            Assert.Throws<ArgumentException>(() => new DatabaseBuilder(new BuilderOptions { MemoryBudget = -1 }));
            using (var b = new DatabaseBuilder())
            {
                Assert.Throws<ArgumentNullException>(() => b.CreateTable(null, KeyKind.Bytes));
                Assert.Throws<ArgumentException>(() => b.CreateTable("x", KeyKind.Composite), "composite without parts");
                Assert.Throws<ArgumentException>(() => b.CreateTable("x", new KeyKind[0]), "no parts");
                Assert.Throws<ArgumentException>(() => b.CreateTable("x", new[] { KeyKind.Composite }), "nested composite");
                Assert.Throws<ArgumentException>(() => b.CreateTable("x", new KeyKind[17].Select(_ => KeyKind.Int64).ToArray()), "17 parts");
                Assert.Throws<ArgumentException>(() => b.CreateTable("x", (KeyKind)42), "bad kind");
                Assert.Throws<ArgumentException>(() => b.CreateTable("x", KeyKind.Bytes, new TableOptions { Compression = (Compression)9 }), "bad compression");
                var t = b.CreateTable("t", KeyKind.Int64);
                Assert.Throws<DryDBException>(() => b.CreateTable("t", KeyKind.Int64), "table twice");
                Assert.Throws<ArgumentNullException>(() => t.Append((byte[])null, new byte[0]));
                Assert.Throws<ArgumentNullException>(() => t.Append(Keys.Int64(1), null));
                Assert.Throws<ArgumentException>(() => t.Append("s", new byte[0]), "string key on int64 table");
                Assert.Status(Status.BadKey, () => t.Append(new byte[3], new byte[0]), "3-byte key");
                Assert.Throws<ArgumentException>(() => t.AppendMany(new[] { new KeyValuePair<byte[], byte[]>(null, null) }));
                Assert.Status(Status.BadKey, () => t.AppendMany(new[] { new KeyValuePair<byte[], byte[]>(new byte[2], new byte[0]) }), "AppendMany bad key");
                t.Append(1L, Fx.B("a"));
                Assert.Throws<InvalidOperationException>(() => t.CreateIndex("late", KeyKind.Int64, (k, v) => k), "computed index after rows");
                Assert.Throws<ArgumentNullException>(() => t.CreateIndex("f", KeyKind.Int64, (Func<byte[], byte[], byte[]>)null));
                var ix = t.CreateIndex("u", KeyKind.Int64, unique: true);
                Assert.Throws<ArgumentNullException>(() => ix.Add((byte[])null, new byte[8]));
                Assert.Throws<ArgumentException>(() => ix.Add("s", new byte[8]), "string on int64 index");
                ix.Add(1L, Keys.Int64(1));
                ix.Add(1L, Keys.Int64(1));
                t.Append(1L, Fx.B("again"));
                Assert.Status(Status.Duplicate, () => b.Build(P("dup.drydb")), "duplicate key reported at build");
                Assert.False(File.Exists(P("dup.drydb")), "no file left by a failed build");
                Assert.Throws<ObjectDisposedException>(() => b.Build(P("dup2.drydb")), "a builder builds once");
                Assert.Throws<ObjectDisposedException>(() => t.Append(2L, Fx.B("x")), "table builder after build");
            }
            using (var b = new DatabaseBuilder())
            {
                b.CreateTable("t", KeyKind.Bytes).Append(new byte[0], new byte[0]);
                Assert.Throws<ArgumentNullException>(() => b.Build(null));
                Assert.Status(Status.IO, () => b.Build(P("no/such/dir/x.drydb")), "unwritable path");
            }
            var d = new DatabaseBuilder();
            var tb = d.CreateTable("t", KeyKind.Bytes);
            d.Dispose();
            d.Dispose();
            Assert.Throws<ObjectDisposedException>(() => tb.Append(new byte[1], new byte[1]), "append after dispose");
            Assert.Throws<ObjectDisposedException>(() => d.Build(P("x.drydb")), "build after dispose");
            Assert.Throws<ObjectDisposedException>(() => d.CreateTable("u", KeyKind.Bytes), "create after dispose");
            Assert.Throws<ObjectDisposedException>(() => d.SetMeta("a", "b"), "meta after dispose");
        }
    }

    [TestClass]
    public sealed class DisposeTests
    {
        [Test]
        public void UseAfterDispose()
        {
            var db = Fx.Open();
            var t = db.GetTable("items");
            var ix = t.Index("by_category");
            var range = t.Range(0L, 100L);
            var en = t.All().GetEnumerator();
            Assert.True(en.MoveNext(), "enumerator started");
            Assert.False(db.IsDisposed, "IsDisposed");
            db.Dispose();
            db.Dispose(); // twice is fine
            Assert.True(db.IsDisposed, "IsDisposed after");
            byte[] v, pk;
            Assert.Throws<ObjectDisposedException>(() => t.TryGet(0L, out v), "TryGet");
            Assert.Throws<ObjectDisposedException>(() => t.Get(Keys.Int64(0)), "Get bytes");
            Assert.Throws<ObjectDisposedException>(() => t.GetMany(new long[] { 0 }), "GetMany");
            Assert.Throws<ObjectDisposedException>(() => t.Count(), "Count");
            Assert.Throws<ObjectDisposedException>(() => t.Rank(0L), "Rank");
            Assert.Throws<ObjectDisposedException>(() => t.At(0), "At");
            Assert.Throws<ObjectDisposedException>(() => t.Info.ToString(), "Info");
            Assert.Throws<ObjectDisposedException>(() => t.Range(0L, 1L), "Range");
            Assert.Throws<ObjectDisposedException>(() => range.Count(), "enumerating a range made before");
            Assert.Throws<ObjectDisposedException>(() => { while (en.MoveNext()) { } }, "enumerator in progress");
            en.Dispose();
            Assert.Throws<ObjectDisposedException>(() => t.OpenCursor(), "OpenCursor");
            Assert.Throws<ObjectDisposedException>(() => t.Index("by_category"), "Index");
            Assert.Throws<ObjectDisposedException>(() => ix.TryGet("c1", out pk, out v), "index get");
            Assert.Throws<ObjectDisposedException>(() => ix.Count(), "index count");
            Assert.Throws<ObjectDisposedException>(() => ix.GetAll("c1").Count(), "index GetAll");
            Assert.Throws<ObjectDisposedException>(() => ix.OpenCursor(), "index cursor");
            Assert.Throws<ObjectDisposedException>(() => db.GetTable("items"), "GetTable");
            Assert.Throws<ObjectDisposedException>(() => db.Tables.ToString(), "Tables");
            Assert.Throws<ObjectDisposedException>(() => db.Info.ToString(), "Info");
            Assert.Throws<ObjectDisposedException>(() => db.Verify(), "Verify");
            Assert.Throws<ObjectDisposedException>(() => db.TryGetMeta(new byte[1], out v), "meta");
            Assert.Throws<ObjectDisposedException>(() => db.CacheStats.ToString(), "CacheStats");
            var task = t.GetAsync(0L);
            Assert.True(task.IsFaulted && task.Exception.InnerException is ObjectDisposedException, "async after dispose");
        }

        [Test]
        public void LeakedObjectsAreFinalized()
        {
            // cursors and databases left to the GC close themselves
            for (int i = 0; i < 50; i++)
            {
                var db = Fx.Open();
                var c = db.GetTable("items").OpenCursor();
                c.Next();
                var e = db.GetTable("items").All().GetEnumerator();
                e.MoveNext();
            }
            GC.Collect(); GC.WaitForPendingFinalizers(); GC.Collect();
            using (var db = Fx.Open()) Assert.Equal((long)N, db.GetTable("items").Count(), "still works");
        }
    }
}
