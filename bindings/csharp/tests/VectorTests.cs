// VectorTests.cs - the shared vectors in tests/vectors (DRYDB_VECTORS):
// keys.json (key encodings), and go_built.drydb / c_built.drydb checked
// against expected.json; then the same contents rebuilt with the C# builder
// and checked against the same expectations.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class VectorTests
    {
        internal static string VectorDir()
        {
            var d = Environment.GetEnvironmentVariable("DRYDB_VECTORS");
            if (string.IsNullOrEmpty(d))
            {
                // out/ -> bindings/csharp -> repo root
                d = System.IO.Path.GetFullPath(System.IO.Path.Combine(AppDomain.CurrentDomain.BaseDirectory, "../../../tests/vectors"));
            }
            return d;
        }

        static object Load(string name)
        {
            var p = System.IO.Path.Combine(VectorDir(), name);
            if (!File.Exists(p)) throw new SkipException(p + " not present (set DRYDB_VECTORS to tests/vectors)");
            return Json.Parse(File.ReadAllText(p));
        }

        static List<object> L(object o) { return o == null ? new List<object>() : (List<object>)o; }
        static Dictionary<string, object> D(object o) { return (Dictionary<string, object>)o; }
        static byte[] H(object o) { return o == null ? null : Keys.FromHex((string)o); }

        static double Dbl(object v)
        {
            var s = v as string;
            if (s == "inf") return double.PositiveInfinity;
            if (s == "-inf") return double.NegativeInfinity;
            if (s == "-0") return -0.0;
            return Convert.ToDouble(v, CultureInfo.InvariantCulture);
        }

        [Test]
        public void KeyEncodings()
        {
            var k = D(Load("keys.json"));
            int n = 0;
            foreach (var e in L(k["int64"]).Select(D)) { Assert.Equal((string)e["hex"], Keys.ToHex(Keys.Int64(Convert.ToInt64(e["value"]))), "int64 " + e["value"]); Assert.Equal(Convert.ToInt64(e["value"]), Keys.ToInt64(H(e["hex"])), "decode"); n++; }
            foreach (var e in L(k["uint64"]).Select(D)) { var v = ulong.Parse((string)e["value"]); Assert.Equal((string)e["hex"], Keys.ToHex(Keys.UInt64(v)), "uint64 " + v); Assert.Equal(v, Keys.ToUInt64(H(e["hex"])), "decode"); n++; }
            foreach (var e in L(k["float64"]).Select(D))
            {
                double v = Dbl(e["value"]);
                Assert.Equal((string)e["hex"], Keys.ToHex(Keys.Float64(v)), "float64 " + e["value"]);
                Assert.Equal(v == 0 ? 0.0 : v, Keys.ToFloat64(H(e["hex"])), "decode");
                n++;
            }
            foreach (var e in L(k["uuid"]).Select(D))
            {
                var g = new Guid((string)e["value"]);
                Assert.Equal((string)e["hex"], Keys.ToHex(Keys.Uuid(g)), "uuid (RFC order, not Guid.ToByteArray)");
                Assert.Equal(g, Keys.ToGuid(H(e["hex"])), "decode");
                string mixed = Keys.ToHex(g.ToByteArray()), rfc = (string)e["hex"];
                if (g != Guid.Empty && g != new Guid("ffffffff-ffff-ffff-ffff-ffffffffffff")) Assert.False(mixed == rfc, "ToByteArray is mixed-endian: " + mixed + " vs " + rfc);
                n++;
            }
            foreach (var e in L(k["ulid"]).Select(D))
            {
                Assert.Equal((string)e["hex"], Keys.ToHex(Keys.UlidFromString((string)e["value"])), "ulid");
                Assert.Equal((string)e["value"], Keys.UlidToString(H(e["hex"])), "ulid text");
                n++;
            }
            foreach (var e in L(k["composite"]).Select(D))
            {
                var parts = L(e["parts"]).Cast<string>().ToList();
                var vals = L(e["values"]);
                var c = Keys.Composite();
                for (int i = 0; i < vals.Count; i++) // fewer values than parts: a tuple prefix
                {
                    var v = vals[i];
                    switch (parts[i])
                    {
                        case "int64": c.Add(Convert.ToInt64(v)); break;
                        case "uint64": c.Add(ulong.Parse(Convert.ToString(v, CultureInfo.InvariantCulture))); break;
                        case "float64": c.Add(Dbl(v)); break;
                        case "string": c.Add((string)v); break;
                        case "bytes": c.AddBytes(H(D(v)["hex"])); break;
                        case "uuid": c.Add(new Guid((string)v)); break;
                        case "ulid": c.AddUlid(Keys.UlidFromString((string)v)); break;
                        default: throw new Exception("unknown part " + parts[i]);
                    }
                }
                Assert.Equal((string)e["hex"], Keys.ToHex(c.ToArray()), "composite " + string.Join(",", parts));
                n++;
            }
            Assert.True(n > 20, "vectors read: " + n);
            Assert.Throws<ArgumentException>(() => Keys.Float64(double.NaN));
            Assert.Throws<ArgumentException>(() => Keys.UlidFromString("8ZZZZZZZZZZZZZZZZZZZZZZZZZ"), "ulid overflow");
            Assert.Throws<ArgumentException>(() => Keys.ToInt64(new byte[7]));
            Assert.Throws<ArgumentException>(() => Keys.Composite().AddBytes(new byte[0]).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L).Add(1L), "17 parts");
        }

        [Test] public void GoBuiltFile() { CheckFile("go_built", null); }
        [Test] public void CBuiltFile() { CheckFile("c_built", null); }
        [Test] public void GoBuiltRebuiltInCSharp() { CheckFile("go_built", "cs_from_go.drydb"); }
        [Test] public void CBuiltRebuiltInCSharp() { CheckFile("c_built", "cs_from_c.drydb"); }

        static void CheckFile(string which, string rebuild)
        {
            var f = D(D(Load("expected.json"))[which]);
            var path = System.IO.Path.Combine(VectorDir(), (string)f["file"]);
            if (!File.Exists(path)) throw new SkipException(path + " not present");
            if (rebuild != null) path = Rebuild(f, System.IO.Path.Combine(Fx.Dir, rebuild));
            using (var db = Database.Open(path, new DatabaseOptions { Verify = true }))
            {
                foreach (var m in D(f["meta"]))
                {
                    byte[] v;
                    Assert.True(db.TryGetMeta(Encoding.UTF8.GetBytes(m.Key), out v), "meta " + m.Key);
                    Assert.Bytes(H(m.Value), v, "meta " + m.Key);
                }
                var tables = L(f["tables"]).Select(D).ToList();
                Assert.Equal(tables.Count, db.Tables.Count, which + " tables");
                foreach (var t in tables) CheckTable(db, t, which);
            }
        }

        static void CheckTable(Database db, Dictionary<string, object> t, string which)
        {
            string name = (string)t["name"];
            string w = which + "." + name;
            var tbl = db.GetTable(name);
            var info = tbl.Info;
            Assert.Equal((KeyKind)Convert.ToInt32(t["key_kind"]), info.KeyKind, w + " key kind");
            Assert.True(L(t["parts"]).Select(p => (KeyKind)Convert.ToInt32(p)).SequenceEqual(info.Parts), w + " parts");
            Assert.Equal((Compression)Convert.ToInt32(t["compression"]), info.Compression, w + " compression");
            long rows = Convert.ToInt64(t["rows"]);
            Assert.Equal(rows, info.Rows, w + " rows");
            Assert.Equal(rows, tbl.Count(), w + " Count");
            var entries = L(t["entries"]).Select(e => new KeyValuePair<byte[], byte[]>(H(L(e)[0]), H(L(e)[1]))).ToList();
            // full walk, forward and backward, and by cursor
            var all = tbl.All().ToList();
            Assert.Equal(entries.Count, all.Count, w + " All");
            for (int i = 0; i < all.Count; i++) { Assert.Bytes(entries[i].Key, all[i].Key, w + " key " + i); Assert.Bytes(entries[i].Value, all[i].Value, w + " value " + i); }
            var rev = tbl.All(reverse: true).ToList();
            for (int i = 0; i < rev.Count; i++) Assert.Bytes(entries[entries.Count - 1 - i].Key, rev[i].Key, w + " reverse " + i);
            using (var c = tbl.OpenCursor())
            {
                int i = 0;
                while (c.Next()) { Assert.Bytes(entries[i].Key, c.Key, w + " cursor key"); Assert.Bytes(entries[i].Value, c.Value, w + " cursor value"); i++; }
                Assert.Equal(entries.Count, i, w + " cursor rows");
            }
            // point reads, batch, n-th row, rank
            for (int i = 0; i < entries.Count; i++)
            {
                byte[] v;
                Assert.True(tbl.TryGet(entries[i].Key, out v), w + " TryGet " + Keys.ToHex(entries[i].Key));
                Assert.Bytes(entries[i].Value, v, w + " TryGet value");
                var at = tbl.At(i);
                Assert.Bytes(entries[i].Key, at.Key, w + " At");
                Assert.Equal((long)i, tbl.Rank(entries[i].Key), w + " Rank");
            }
            var many = tbl.GetMany(entries.Select(e => e.Key).ToList());
            for (int i = 0; i < entries.Count; i++) Assert.Bytes(entries[i].Value, many[i], w + " GetMany " + i);
            var missing = L(t["missing"]).Select(H).ToList();
            foreach (var m in missing)
            {
                byte[] v;
                try { Assert.False(tbl.TryGet(m, out v), w + " missing " + Keys.ToHex(m)); }
                catch (DryDBException e) { Assert.Equal(Status.BadKey, e.Code, w + " missing key of the wrong shape"); }
            }
            var mm = SafeMany(tbl, missing);
            if (mm != null) Assert.True(mm.All(x => x == null), w + " GetMany missing");
            // counts and ranges with every bound kind
            foreach (var c in L(t["counts"]).Select(D))
            {
                var lo = B(c["lo"], c["lo_kind"]); var hi = B(c["hi"], c["hi_kind"]);
                long want = Convert.ToInt64(c["count"]);
                string what = w + " count " + lo + ".." + hi;
                Assert.Equal(want, tbl.Count(lo, hi), what);
                Assert.Equal(want, (long)tbl.Range(lo, hi).Count(), what + " (Range)");
                Assert.Equal(want, (long)tbl.Range(lo, hi, reverse: true).Count(), what + " (reverse Range)");
                using (var cur = tbl.OpenCursor(lo, hi)) { long n = 0; while (cur.Next()) n++; Assert.Equal(want, n, what + " (cursor)"); }
            }
            // indexes
            foreach (var ix in L(t["indexes"]).Select(D))
            {
                var index = tbl.Index((string)ix["name"]);
                string iw = w + "." + index.Name;
                Assert.Equal(Convert.ToBoolean(ix["unique"]), index.Unique, iw + " unique");
                Assert.Equal((KeyKind)Convert.ToInt32(ix["key_kind"]), index.KeyKind, iw + " key kind");
                var ie = L(ix["entries"]).Select(e => new KeyValuePair<byte[], byte[]>(H(L(e)[0]), H(L(e)[1]))).ToList();
                var got = index.Range(Bound.Unbounded, Bound.Unbounded).ToList();
                Assert.Equal(ie.Count, got.Count, iw + " entries");
                Assert.Equal((long)ie.Count, index.Count(), iw + " Count");
                var byPk = entries.ToDictionary(e => e.Key, e => e.Value, Keys.EqualityComparer);
                for (int i = 0; i < ie.Count; i++)
                {
                    Assert.Bytes(ie[i].Key, got[i].IndexKey, iw + " ikey " + i);
                    Assert.Bytes(ie[i].Value, got[i].PrimaryKey, iw + " pk " + i);
                    Assert.Bytes(byPk[ie[i].Value], got[i].Value, iw + " value " + i);
                }
                foreach (var g in ie.GroupBy(e => Keys.ToHex(e.Key)))
                {
                    var ik = Keys.FromHex(g.Key);
                    var ga = index.GetAll(ik).ToList();
                    Assert.True(ga.Select(x => Keys.ToHex(x.PrimaryKey)).SequenceEqual(g.Select(x => Keys.ToHex(x.Value))), iw + " GetAll " + g.Key);
                    Assert.Equal((long)g.Count(), index.CountKey(ik), iw + " CountKey");
                    byte[] pk, v;
                    Assert.True(index.TryGet(ik, out pk, out v), iw + " TryGet");
                    Assert.Bytes(g.First().Value, pk, iw + " TryGet = first entry of the key");
                    // exclusive bounds around the key
                    long below = ie.Count(e => Keys.Compare(e.Key, ik) < 0), above = ie.Count(e => Keys.Compare(e.Key, ik) > 0);
                    Assert.Equal(below, index.Count(Bound.Unbounded, Bound.Exclusive(ik)), iw + " count below");
                    Assert.Equal(above, index.Count(Bound.Exclusive(ik), Bound.Unbounded), iw + " count above");
                    Assert.Equal((int)above, index.Range(Bound.Exclusive(ik), Bound.Unbounded).Count(), iw + " range above");
                }
            }
        }

        static byte[][] SafeMany(Table t, List<byte[]> keys)
        {
            try { return t.GetMany(keys); } catch (DryDBException) { return null; }
        }

        static Bound B(object key, object kind)
        {
            switch (Convert.ToInt32(kind))
            {
                case 0: return Bound.Unbounded;
                case 1: return Bound.Inclusive(H(key));
                default: return Bound.Exclusive(H(key));
            }
        }

        // The same logical contents, written by the C# builder.
        static string Rebuild(Dictionary<string, object> f, string path)
        {
            using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 1024 }))
            {
                foreach (var m in D(f["meta"])) b.SetMeta(Encoding.UTF8.GetBytes(m.Key), H(m.Value));
                foreach (var t in L(f["tables"]).Select(D))
                {
                    var kind = (KeyKind)Convert.ToInt32(t["key_kind"]);
                    var opts = new TableOptions { Compression = (Compression)Convert.ToInt32(t["compression"]) };
                    var tb = kind == KeyKind.Composite
                        ? b.CreateTable((string)t["name"], L(t["parts"]).Select(p => (KeyKind)Convert.ToInt32(p)).ToArray(), opts)
                        : b.CreateTable((string)t["name"], kind, opts);
                    tb.AppendMany(L(t["entries"]).Select(e => new KeyValuePair<byte[], byte[]>(H(L(e)[0]), H(L(e)[1]))));
                    foreach (var ix in L(t["indexes"]).Select(D))
                    {
                        var ik = (KeyKind)Convert.ToInt32(ix["key_kind"]);
                        bool unique = Convert.ToBoolean(ix["unique"]);
                        var ib = ik == KeyKind.Composite
                            ? tb.CreateIndex((string)ix["name"], L(ix.ContainsKey("parts") ? ix["parts"] : null).Select(p => (KeyKind)Convert.ToInt32(p)).ToArray(), unique)
                            : tb.CreateIndex((string)ix["name"], ik, unique);
                        ib.AddMany(L(ix["entries"]).Select(e => new KeyValuePair<byte[], byte[]>(H(L(e)[0]), H(L(e)[1]))));
                    }
                }
                b.Build(path);
            }
            return path;
        }
    }

    /// <summary>The vector files' JSON, read by the binding's own reader
    /// (Codecs.cs; CodecTests checks it case by case).</summary>
    public static class Json
    {
        public static object Parse(string s) { return Codecs.Decode("json", Encoding.UTF8.GetBytes(s)); }
        public static Dictionary<string, object> Obj(object o) { return (Dictionary<string, object>)o; }
        public static List<object> Arr(object o) { return (List<object>)o; }
    }
}
