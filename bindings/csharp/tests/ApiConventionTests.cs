// ApiConventionTests.cs - issue 18's C# items: no type name of the binding
// clashes with the BCL (System.Index, ...); every call that takes a key or a
// bound takes every key type (long, ulong, double, string, Guid, byte[],
// tuples, tuple prefixes); TryGetValue and the indexer; CancellationToken on
// the async twins; two-key ranges are [lo, hi); messages name keys as they
// read in C#; a missing native library says what was searched.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class ApiConventionTests : IDisposable
    {
        readonly Database db = Fx.Open();
        public void Dispose() { db.Dispose(); }

        [Test]
        public void NoTypeNameClashesWithTheBcl()
        {
            // `using System; using DryDB;` (what .NET 6+ implicit usings give)
            // must not make a name ambiguous (CS0104), as DryDB.Index did with System.Index.
            var bcl = new[] { typeof(object).Assembly, typeof(Uri).Assembly, typeof(Enumerable).Assembly };
            var clashes = typeof(Database).Assembly.GetExportedTypes()
                .Where(t => bcl.Any(a => a.GetType("System." + t.Name) != null || a.GetType("System.Collections.Generic." + t.Name) != null ||
                                         a.GetType("System.Threading.Tasks." + t.Name) != null || a.GetType("System.IO." + t.Name) != null ||
                                         a.GetType("System.Linq." + t.Name) != null || a.GetType("System.Threading." + t.Name) != null))
                .Select(t => t.Name).ToList();
            Assert.True(clashes.Count == 0, "types named like BCL types: " + string.Join(", ", clashes));
            Assert.True(typeof(Database).Assembly.GetType("DryDB.Index") == null, "DryDB.Index is gone");
            SecondaryIndex ix = db.GetTable("items").Index("by_category");
            Assert.Equal("by_category", ix.Name, "SecondaryIndex");
        }

        [Test]
        public void GuidKeysEverywhere()
        {
            var t = db.GetTable("uuids");
            var sorted = Guids.OrderBy(g => g.ToString(), StringComparer.Ordinal).ToArray();
            Guid lo = sorted[10], hi = sorted[20];
            Assert.Equal(10L, t.Count(lo, hi), "Count [lo, hi)");
            Assert.Equal(10, t.Range(lo, hi).Count(), "Range");
            Assert.Equal(lo, Keys.ToGuid(t.Range(lo, hi).First().Key), "Range starts at lo");
            Assert.Equal(11, t.Range(Bound.Inclusive(lo), Bound.Inclusive(hi)).Count(), "Bound.Inclusive(Guid)");
            Assert.Equal(10L, t.Rank(lo), "Rank");
            Assert.True(t.ContainsKey(lo) && !t.ContainsKey(Guid.Empty), "ContainsKey");
            var many = t.GetMany(new List<Guid> { Guids[3], Guid.Empty });
            Assert.Str("g3", many[0], "GetMany"); Assert.True(many[1] == null, "GetMany absent");
            Assert.Str("g5", t.GetAsync(Guids[5]).Result, "GetAsync");
            Assert.Str("g7", t[Guids[7]], "indexer");
            byte[] v;
            Assert.True(t.TryGetValue(Guids[8], out v) && Fx.S(v) == "g8", "TryGetValue");
            using (var c = t.OpenCursor(Bound.Inclusive(lo), Bound.Exclusive(hi)))
            {
                int n = 0;
                while (c.Next()) n++;
                Assert.Equal(10, n, "cursor bounds");
                Assert.True(c.SeekExact(sorted[15]) && Fx.S(c.Value) == "g" + Array.IndexOf(Guids, sorted[15]), "Cursor.SeekExact(Guid)");
                Assert.True(c.Seek(sorted[12]) && Keys.ToGuid(c.Key) == sorted[12], "Cursor.Seek(Guid)");
            }
            using (var c = db.GetTable("u64").OpenCursor())
                Assert.True(c.Seek(2) && Keys.ToUInt64(c.Key) == 255 && c.SeekExact(1UL << 40), "Cursor.Seek(long) on a uint64 table");
            using (var c = db.GetTable("pairs").OpenPrefixCursor(Key.Tuple("b")))
            {
                Assert.True(c.Next() && Fx.S(c.Value) == "b:-3", "OpenPrefixCursor(tuple)");
                Assert.True(c.SeekExact(Key.Tuple("b", 2)) && Fx.S(c.Value) == "b:2", "Cursor.SeekExact(tuple)");
            }
            using (var c = db.GetTable("items").Index("by_category").OpenPrefixCursor("c1"))
                Assert.True(c.Next() && Fx.S(c.Key) == "c1" && c.Seek("c2") == false, "index OpenPrefixCursor(string), Seek past the prefix");
        }

        [Test]
        public void NumericKeysEverywhere()
        {
            var u = db.GetTable("u64");
            Assert.Equal(2L, u.Count(1UL, 1UL << 40), "ulong Count");
            Assert.Equal(1L, u.Rank(1UL), "ulong Rank");
            Assert.Equal(2L, u.Count(1, 256), "int literals on a uint64 table");
            Assert.Str("u255", u[255], "int indexer on a uint64 table");
            Assert.Throws<ArgumentException>(() => u.Get(-1), "a negative key on a uint64 table");
            var f = db.GetTable("floats");
            Assert.Equal(3L, f.Count(-2.5, 0.0), "double Count: -2.5, -1, -5e-324");
            Assert.Equal(4L, f.Count(-2, 1), "long bounds on a float64 table: -1, -5e-324, 0, 5e-324");
            Assert.Equal(3L, f.Rank(-1.0), "double Rank");
            Assert.Str("u1", u.Get(1), "Get(long) on a uint64 table");
            Assert.Str("f2.5", f[2.5], "double indexer");
            Assert.True(f.GetMany(new List<double> { 1, 3 })[1] == null, "GetMany double");
            Assert.Throws<ArgumentException>(() => f.Get(double.NaN), "NaN");
            var items = db.GetTable("items");
            Assert.Throws<ArgumentException>(() => items.Count("a", "b"), "string bounds on an int64 table");
            var e = Assert.Throws<ArgumentException>(() => items.Rank(Guid.Empty), "Guid on int64");
            Assert.True(e.Message.Contains("table 'items'") && e.Message.Contains("Int64") && e.Message.Contains(Guid.Empty.ToString()), e.Message);
        }

        [Test]
        public void TuplesAndPrefixes()
        {
            var pairs = db.GetTable("pairs");  // (string, int64): "", "a", "a\0b", "b" x -3..2
            Assert.Str("a:1", pairs[Key.Tuple("a", 1)], "tuple indexer");
            Assert.Equal(6L, pairs.Count(Key.Tuple("a"), Key.Tuple("a\0b")), "[(a,), (a\\0b,))");
            Assert.Equal(6L, pairs.Count(Bound.Inclusive(Key.Tuple("a")), Bound.Inclusive(Key.Tuple("a"))), "[(a,), (a,)]: every key with the prefix");
            Assert.Equal(12L, pairs.Count(Bound.Exclusive(Key.Tuple("a")), Bound.Unbounded), "((a,), inf): after the last (a, _)");
            Assert.Equal(0L, pairs.Count(Bound.Exclusive(Key.Tuple("b")), Bound.Unbounded), "after the last key: empty");
            Assert.Equal("a\0b:-3", Fx.S(pairs.Range(Bound.Exclusive(Key.Tuple("a")), Bound.Unbounded).First().Value), "first after (a,)");
            Assert.Equal(6, pairs.Prefix(Key.Tuple("b")).Count(), "Prefix(tuple)");
            Assert.Equal(6L, pairs.Rank(Key.Tuple("a", -3)), "Rank of a tuple");
            Assert.Throws<ArgumentException>(() => pairs.Get(Key.Tuple("a", 1, 2)), "too many parts");
            Assert.Throws<ArgumentException>(() => pairs.Get("a"), "a scalar on a composite table");
            Assert.Throws<ArgumentException>(() => Key.Tuple("a", Key.Tuple("b")), "nested tuple");
            Assert.Bytes(Keys.Composite().Add("a").Add(1L).ToArray(), Key.Tuple("a", 1L).ToBytes(), "ToBytes");
            Assert.Equal("(\"a\", 1)", Key.Describe(Key.Tuple("a", 1L).ToBytes(), KeyKind.Composite, new[] { KeyKind.String, KeyKind.Int64 }), "Describe tuple");
            Assert.Equal("0x0102", Key.Describe(new byte[] { 1, 2 }, KeyKind.Int64, null), "Describe bytes that are no int64");
            Assert.Equal("(\"a\", 1)", Key.Tuple("a", 1L).ToString(), "ToString");
            // index keys: partial tuples through the index calls (an index on (string, int64))
            using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 512 }))
            {
                var t = b.CreateTable("t", KeyKind.Int64);
                var ib = t.CreateIndex("by_pair", new[] { KeyKind.String, KeyKind.Int64 });
                for (int i = 0; i < 300; i++)
                {
                    t.Append(i, new byte[0]);
                    ib.Add(Key.Tuple(((char)('a' + i % 3)).ToString(), i % 5), Keys.Int64(i));
                }
                using (var d = Database.OpenMemory(b.BuildToMemory()))
                {
                    var ix = d.GetTable("t").Index("by_pair");
                    Assert.Equal(100L, ix.CountKey(Key.Tuple("b")), "CountKey(prefix)");
                    Assert.Equal(100, ix.GetAll(Key.Tuple("b")).Count(), "GetAll(prefix)");
                    Assert.Equal(20L, ix.CountKey(Key.Tuple("b", 1)), "CountKey(full)");
                    Assert.Equal(100L, ix.Count(Bound.Exclusive(Key.Tuple("b")), Bound.Unbounded), "after the last (b, _)");
                    Assert.Equal(200L, ix.Count(Key.Tuple("a"), Key.Tuple("c")), "[(a,), (c,))");
                    var first = ix.Range(Bound.Exclusive(Key.Tuple("a")), Bound.Inclusive(Key.Tuple("b"))).ToList();
                    Assert.Equal(100, first.Count, "((a,), (b,)]");
                    Assert.Equal("(\"b\", 0)", Key.Describe(first[0].IndexKey, KeyKind.Composite, ix.Parts), "first entry after (a,)");
                    Assert.Equal(0L, ix.Count(Bound.Exclusive(Key.Tuple("c")), Bound.Unbounded), "after the last entry: empty");
                    Assert.True(ix.Get(Key.Tuple("c", 4)) != null, "Get(tuple)");
                }
            }
        }

        [Test]
        public void TryGetValueAndIndexer()
        {
            var items = db.GetTable("items");
            byte[] v;
            Assert.True(items.TryGetValue(10, out v) && Fx.S(v) == "item-10", "TryGetValue");
            Assert.False(items.TryGetValue(11, out v), "absent");
            Assert.Str("item-10", items[10], "indexer");
            var e = Assert.Throws<KeyNotFoundException>(() => { var x = items[11]; }, "indexer absent");
            Assert.True(e.Message.Contains("key 11 ") && e.Message.Contains("table 'items'"), "the message names the key: " + e.Message);
            var w = db.GetTable("words");
            e = Assert.Throws<KeyNotFoundException>(() => { var x = w["nope"]; }, "string key");
            Assert.True(e.Message.Contains("\"nope\""), e.Message);
            var typed = db.GetTable("typed").WithSerializer<Item>(Item.Deserialize);
            Item it;
            Assert.True(typed.TryGetValue(3, out it) && it.Name == "n3", "TypedTable.TryGetValue");
            Assert.Throws<KeyNotFoundException>(() => { var x = typed[1000]; }, "typed indexer absent");
        }

        [Test]
        public void CancellationTokens()
        {
            var items = db.GetTable("items");
            var cancelled = new CancellationToken(true);
            var tasks = new Task[] {
                items.GetAsync(10, cancelled), items.GetManyAsync(new List<Key> { 10 }, cancelled), items.CountAsync(cancelled),
                items.CountAsync(0, 100, cancelled), items.RangeAsync(0, 100, false, cancelled), items.PrefixAsync(new byte[0], false, cancelled),
                items.Index("by_category").GetAllAsync("c3", cancelled), items.Index("by_category").RangeAsync("c3", "c4", false, cancelled),
                items.Index("by_category").CountAsync("c3", "c4", cancelled),
            };
            foreach (var t in tasks) Assert.True(t.IsCanceled, "a cancelled token gives a cancelled task");
            Assert.Equal(5L, items.CountAsync(10, 20, CancellationToken.None).Result, "not cancelled");
            Assert.Equal(10, items.GetManyAsync(Enumerable.Range(0, 10).Select(i => (Key)(2L * i)).ToList()).Result.Count(x => x != null), "GetManyAsync(Key)");
            // cancelled while a long range is being read (here by the value
            // deserializer, on row 100): it stops between rows
            using (var cts = new CancellationTokenSource())
            {
                int seen = 0;
                var view = items.WithSerializer(b => { if (++seen == 100) cts.Cancel(); return b; });
                var task = view.RangeAsync(Bound.Unbounded, Bound.Unbounded, false, cts.Token);
                Assert.True(task.IsCanceled && seen < N, "cancelled mid-range after " + seen + " rows");
            }
            var failing = items.CountAsync(Bound.Exclusive(new byte[0]), Bound.Unbounded, CancellationToken.None);
            Assert.True(failing.IsFaulted && failing.Exception.InnerException is DryDBException, "a failure is reported through the task");
        }

        [Test]
        public void DuplicateKeyErrorsShowTheKey()
        {
            var cases = new[] {
                new { Kind = KeyKind.Int64, Parts = (KeyKind[])null, Key = (Key)42L, Want = "has key 42 twice" },
                new { Kind = KeyKind.String, Parts = (KeyKind[])null, Key = (Key)"é\"x", Want = "has key \"é\\\"x\" twice" },
                new { Kind = KeyKind.Uuid, Parts = (KeyKind[])null, Key = (Key)Guids[0], Want = "has key " + Guids[0] + " twice" },
                new { Kind = KeyKind.Composite, Parts = new[] { KeyKind.String, KeyKind.Int64 }, Key = Key.Tuple("a", -1L), Want = "has key (\"a\", -1) twice" },
            };
            foreach (var c in cases)
            {
                using (var b = new DatabaseBuilder())
                {
                    var tb = c.Parts == null ? b.CreateTable("t", c.Kind) : b.CreateTable("t", c.Parts);
                    tb.Append(c.Key, new byte[0]);
                    tb.Append(c.Key, new byte[0]);
                    var e = Assert.Status(Status.Duplicate, () => b.BuildToMemory(), c.Kind.ToString());
                    Assert.True(e.Message.Contains("table \"t\" " + c.Want), c.Kind + ": " + e.Message);
                }
            }
            using (var b = new DatabaseBuilder())
            {
                var tb = b.CreateTable("t", KeyKind.Int64);
                var ib = tb.CreateIndex("u", KeyKind.String, unique: true);
                tb.Append(1, new byte[0]); tb.Append(2, new byte[0]);
                ib.Add("same", Keys.Int64(1)); ib.Add("same", Keys.Int64(2));
                var e = Assert.Status(Status.Duplicate, () => b.BuildToMemory(), "unique index");
                Assert.True(e.Message.Contains("index \"u\" has index key \"same\" twice"), e.Message);
            }
        }

        [Test]
        public void CodecRecordedAndRead()
        {
            using (var b = new DatabaseBuilder())
            {
                b.CreateTable("j", KeyKind.Int64, new TableOptions { Codec = "json" }).Append(1, Fx.B("{\"a\":1}"));
                b.CreateTable("none", KeyKind.Int64).Append(1, Fx.B("x"));
                Assert.Status(Status.Invalid, () => b.CreateTable("bad", KeyKind.Int64, new TableOptions { Codec = "a\nb" }), "a newline in a codec name");
                using (var d = Database.OpenMemory(b.BuildToMemory()))
                {
                    Assert.Equal("json", d.GetTable("j").Codec, "recorded codec");
                    Assert.Equal("", d.GetTable("none").Codec, "no codec");
                    Assert.Str("{\"a\":1}", d.GetTable("j")[1], "values stay bytes");
                }
            }
            Assert.Equal("", db.GetTable("items").Codec, "the fixture records none");
        }

        [Test]
        public void MissingNativeLibrarySaysWhatToInstall()
        {
            // DryDB.dll and this program copied where no libdrydb is, run with no
            // library path: the first call must say what was searched.
            var here = AppDomain.CurrentDomain.BaseDirectory;
            var dir = System.IO.Path.Combine(Fx.Dir, "nolib");
            Directory.CreateDirectory(dir);
            // netstandard.dll: the facade a netstandard2.0 DryDB.dll needs on Mono, when beside it (scripts/test-nupkg)
            foreach (var f in new[] { "DryDB.dll", "DryDB.dll.config", "DryDB.Tests.exe", "netstandard.dll" })
                if (f != "netstandard.dll" || File.Exists(System.IO.Path.Combine(here, f)))
                    File.Copy(System.IO.Path.Combine(here, f), System.IO.Path.Combine(dir, f), true);
            var psi = new ProcessStartInfo(Process.GetCurrentProcess().MainModule.FileName, "DryDB.Tests.exe --no-library") { WorkingDirectory = dir, UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
            psi.EnvironmentVariables.Remove("LD_LIBRARY_PATH");
            psi.EnvironmentVariables.Remove("DRYDB_LIBRARY");
            using (var p = Process.Start(psi))
            {
                var output = p.StandardOutput.ReadToEnd() + p.StandardError.ReadToEnd();
                p.WaitForExit();
                Assert.Equal(0, p.ExitCode, "child: " + output);
                Assert.True(output.Contains("DllNotFoundException") && output.Contains("libdrydb.so") && output.Contains(dir) &&
                            output.Contains("make lib") && output.Contains("NuGet"), output);
            }
        }

        /// <summary>The child of MissingNativeLibrarySaysWhatToInstall: opens a
        /// database with no library to load and prints what it was told.</summary>
        public static int NoLibrary()
        {
            try { Database.OpenMemory(new byte[16]); }
            catch (DllNotFoundException e) { Console.WriteLine("DllNotFoundException: " + e.Message); return 0; }
            catch (Exception e) { Console.WriteLine("unexpected " + e); return 1; }
            Console.WriteLine("no exception");
            return 1;
        }
    }
}
