// CoverageTests.cs - every public member of the binding is used by some test
// (a textual check over tests/*.cs, run by `make test`), plus the small
// members not exercised elsewhere.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class CoverageTests
    {
        [Test]
        public void EveryPublicMemberIsTested()
        {
            var dir = Environment.GetEnvironmentVariable("DRYDB_CS_TESTS");
            if (string.IsNullOrEmpty(dir) || !Directory.Exists(dir)) throw new SkipException("DRYDB_CS_TESTS (the tests/ directory) not set");
            var text = string.Join("\n", Directory.GetFiles(dir, "*.cs").Where(f => !f.EndsWith("CoverageTests.cs") || true).Select(File.ReadAllText));
            var missing = new List<string>();
            foreach (var t in typeof(Database).Assembly.GetExportedTypes())
            {
                if (!text.Contains(t.Name.Split('`')[0])) missing.Add(t.Name);
                foreach (var m in t.GetMembers(BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly))
                {
                    if (m is MethodInfo && ((MethodInfo)m).IsSpecialName) continue; // property accessors, operators
                    if (m is ConstructorInfo) continue;
                    if (t.IsEnum && m is FieldInfo && m.Name == "value__") continue;
                    string n = m.Name;
                    if (!text.Contains("." + n) && !text.Contains(n + "(") && !text.Contains(n + " =")) missing.Add(t.Name + "." + n);
                }
            }
            Assert.True(missing.Count == 0, "public members no test uses: " + string.Join(", ", missing.Distinct()));
        }

        [Test]
        public void SmallMembers()
        {
            Assert.Equal("Unbounded", Bound.Unbounded.ToString(), "Bound.ToString");
            Assert.Equal(BoundKind.Inclusive, Bound.Inclusive("a").Kind, "Bound.Kind");
            Assert.Bytes(Keys.String("a"), Bound.Exclusive("a").Key, "Bound.Key");
            Assert.True(Bound.Exclusive(Keys.Int64(1)).ToString().Contains("Exclusive"), "Bound text");
            var ck = Keys.Composite().Add(1UL).Add(2.0).AddUlid(new byte[16]).Add(Guid.Empty);
            Assert.Equal(4, ck.Count, "CompositeKey.Count");
            byte[] implicitBytes = ck;
            Assert.Equal(8 + 8 + 16 + 16, implicitBytes.Length, "implicit byte[]");
            Assert.Equal("abc", Keys.ToString(Keys.String("abc")), "Keys.ToString");
            Assert.Equal(-1, Keys.Compare(new byte[] { 1 }, new byte[] { 1, 0 }), "Compare prefix");
            Assert.Equal(1, Keys.Compare(new byte[] { 2 }, new byte[] { 1, 0 }), "Compare");
            Assert.True(Keys.EqualityComparer.Equals(new byte[] { 1 }, new byte[] { 1 }) && Keys.EqualityComparer.GetHashCode(new byte[] { 1 }) == Keys.EqualityComparer.GetHashCode(new byte[] { 1 }), "EqualityComparer");
            Assert.Throws<ArgumentException>(() => Keys.FromHex("abc"), "odd hex");
            Assert.Throws<ArgumentException>(() => Keys.Ulid(new byte[15]), "ulid length");
            Assert.True(DryDBException.StatusText(Status.NotFound).Length > 0, "StatusText");
            var e = new DryDBException(Status.Corrupt, "");
            Assert.True(e.Message.Contains("Corrupt"), "message without detail: " + e.Message);
            Assert.Equal(5, e.NativeCode, "NativeCode");
            using (var db = Fx.Open())
            {
                var t = db.GetTable("items");
                Assert.True(t.Parts.Count == 0, "Parts of a plain table");
                var ix = t.Index("by_category");
                var ii = ix.Info;
                Assert.True(ii.KeyKind == KeyKind.String && ii.Parts.Count == 0 && !ii.Unique, "IndexInfo");
                Assert.True(ix.Parts.Count == 0 && ix.ToString().Contains("by_category"), "Index members");
                Assert.True(db.GetTable("words").ContainsKey(Keys.String("w00001")), "ContainsKey");
                var typed = db.GetTable("typed").WithSerializer<Item>(Item.Deserialize);
                Assert.True(ReferenceEquals(typed.Table, db.GetTable("typed")), "TypedTable.Table");
                Assert.Equal(100, typed.Prefix(new byte[0]).Count(), "TypedTable.Prefix");
                Assert.Equal("n1", typed[Keys.Int64(1)].Name, "indexer bytes");
                Item it;
                Assert.True(typed.TryGet(Keys.Int64(1), out it), "TryGet bytes");
                Assert.True(typed.TryGet(1UL, out it), "a ulong that fits an int64 key");
                Assert.Throws<ArgumentException>(() => typed.TryGet(ulong.MaxValue, out it), "ulong past int64");
                Assert.Throws<ArgumentException>(() => typed.TryGet("x", out it), "string on int64");
                Assert.Throws<ArgumentException>(() => typed.TryGet(Guid.Empty, out it), "guid on int64");
                Assert.Throws<ArgumentException>(() => { var x = typed["x"]; }, "string indexer on int64");
                Assert.Equal(2, typed.GetMany(new List<byte[]> { Keys.Int64(1), Keys.Int64(2) }, out var found).Length, "typed GetMany bytes");
                Assert.Throws<ArgumentException>(() => typed.Range("a", "b"), "string range on int64 table");
                DatabaseInfo di = db.Info; TableInfo ti = t.Info;
                Assert.True(di.TableCount == db.Tables.Count && ti.Rows == N, "info types");
                Assert.True(db.CacheStats.Evictions >= 0 && db.CacheStats.Bytes >= 0, "CacheStats");
                IndexEntry first = ix.Range(Bound.Unbounded, Bound.Unbounded).First();
                Assert.True(first.IndexKey != null && first.PrimaryKey != null && first.Value != null, "IndexEntry");
            }
            using (var b = new DatabaseBuilder())
            {
                TableBuilder tb = b.CreateTable("t", KeyKind.Int64);
                Assert.True(ReferenceEquals(b, tb.Builder), "TableBuilder.Builder");
                IndexBuilder ib = tb.CreateIndex("i", KeyKind.String);
                Assert.True(ib.Name == "i" && ib.KeyKind == KeyKind.String, "IndexBuilder members");
                TypedTableBuilder<Item> typedTb = tb.WithSerializer<Item>(Item.Serialize);
                Assert.True(ReferenceEquals(typedTb.Table, tb), "TypedTableBuilder.Table");
                typedTb.Append(Keys.Int64(5), new Item { Name = "five", Price = 5 });
                ib.Add("five", Keys.Int64(5));
                Assert.Throws<ArgumentException>(() => typedTb.Append(ulong.MaxValue, new Item()), "ulong past int64");
                Assert.Throws<ArgumentException>(() => typedTb.Append("x", new Item()), "string on int64");
                Assert.Throws<ArgumentException>(() => tb.Append(1.5, new byte[0]), "double on int64");
                Assert.Throws<ArgumentException>(() => tb.Append(Guid.Empty, new byte[0]), "guid on int64");
                Assert.Throws<ArgumentException>(() => tb.Append(1UL << 63, new byte[0]), "ulong past int64");
                Assert.Throws<ArgumentException>(() => tb.WithSerializer<Item>(x => null).Append(Keys.Int64(6), new Item()), "serializer failure surfaces");
                var img = b.BuildToMemory();
                using (var d = Database.OpenMemory(img, new DatabaseOptions { CacheBytes = 0 }))
                    Assert.Equal("five", d.GetTable("t").WithSerializer<Item>(Item.Deserialize)[5L].Name, "typed builder round trip");
            }
        }

        [Test]
        public unsafe void PointerKeyHelpers()
        {
            byte* p = stackalloc byte[8];
            Keys.PutUInt64(0x0102030405060708UL, p);
            Assert.Equal(0x0102030405060708UL, Keys.ReadUInt64(p), "uint64");
            Assert.Equal((byte)1, p[0], "big-endian");
            Keys.PutFloat64(-2.5, p);
            Assert.Equal(-2.5, Keys.ReadFloat64(p), "float64");
            Keys.PutInt64(-7, p);
            Assert.Equal(-7L, Keys.ReadInt64(p), "int64");
        }

        [Test]
        public void StatusCodesMatchTheHeader()
        {
            var want = new Dictionary<Status, int> {
                { Status.Ok, 0 }, { Status.NotFound, 1 }, { Status.Invalid, 2 }, { Status.Closed, 3 }, { Status.BadHandle, 4 },
                { Status.Corrupt, 5 }, { Status.Version, 6 }, { Status.KeyTooLarge, 7 }, { Status.Duplicate, 8 }, { Status.BadKey, 9 },
                { Status.IO, 10 }, { Status.NoMemory, 11 }, { Status.NoTable, 12 }, { Status.NoIndex, 13 }, { Status.Filter, 14 },
                { Status.TooLarge, 15 }, { Status.Internal, 16 } };
            foreach (var kv in want) Assert.Equal(kv.Value, (int)kv.Key, kv.Key.ToString());
            var texts = want.Keys.Select(DryDBException.StatusText).ToList();
            Assert.Equal(texts.Count, texts.Distinct().Count(), "distinct texts from drydb_strerror");
        }
    }
}
