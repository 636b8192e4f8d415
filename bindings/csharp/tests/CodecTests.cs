// CodecTests.cs - values decoded by the codec the file records: the shared
// vectors (tests/vectors/codecs_py.drydb built by Python, codecs_cli.drydb by
// the CLI) decode to the values Python reads (codecs.json); the json and
// msgpack readers case by case; typed conversion; unknown codecs; raw values.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class CodecTests
    {
        // Python's lower-casing decoder of the user codec the vector records.
        static void RegisterUpperText() { Codecs.Register("upper-text", b => Encoding.UTF8.GetString(b).ToLowerInvariant()); }

        // Deep equality with the types the readers give: long and ulong and
        // double are distinct (1 and 1.0 are not equal), NaN equals NaN.
        internal static bool Same(object want, object got)
        {
            if (want == null || got == null) return want == null && got == null;
            if (want.GetType() != got.GetType()) return false;
            var wd = want as Dictionary<string, object>;
            if (wd != null)
            {
                var gd = (Dictionary<string, object>)got;
                if (wd.Count != gd.Count) return false;
                foreach (var kv in wd) { object g; if (!gd.TryGetValue(kv.Key, out g) || !Same(kv.Value, g)) return false; }
                return true;
            }
            var wl = want as List<object>;
            if (wl != null)
            {
                var gl = (List<object>)got;
                return wl.Count == gl.Count && wl.Zip(gl, Same).All(x => x);
            }
            var wb = want as byte[];
            if (wb != null) return Keys.Equal(wb, (byte[])got);
            return want.Equals(got);
        }

        static string Show(object v)
        {
            if (v == null) return "null";
            var d = v as Dictionary<string, object>;
            if (d != null) return "{" + string.Join(",", d.Select(kv => kv.Key + ":" + Show(kv.Value))) + "}";
            var l = v as List<object>;
            if (l != null) return "[" + string.Join(",", l.Select(Show)) + "]";
            var b = v as byte[];
            if (b != null) return "bytes " + Keys.ToHex(b);
            if (v is double) return "Double " + ((double)v).ToString("R", System.Globalization.CultureInfo.InvariantCulture);
            return v.GetType().Name + " " + Convert.ToString(v, System.Globalization.CultureInfo.InvariantCulture);
        }

        // codecs.json writes a bytes value as {"$bytes": hex}.
        static object Expected(object v)
        {
            var d = v as Dictionary<string, object>;
            if (d != null && d.Count == 1 && d.ContainsKey("$bytes")) return Keys.FromHex((string)d["$bytes"]);
            if (d != null) return d.ToDictionary(kv => kv.Key, kv => Expected(kv.Value));
            var l = v as List<object>;
            if (l != null) return l.Select(Expected).ToList();
            return v;
        }

        [Test]
        public void VectorsDecodeAsPythonReadsThem()
        {
            var dir = VectorTests.VectorDir();
            var p = System.IO.Path.Combine(dir, "codecs.json");
            if (!File.Exists(p)) throw new SkipException(p + " not present");
            RegisterUpperText();
            var doc = Json.Obj(Json.Parse(File.ReadAllText(p)));
            int rows = 0;
            foreach (var which in new[] { "python_built", "cli_built" })
            {
                var f = Json.Obj(doc[which]);
                using (var db = Database.Open(System.IO.Path.Combine(dir, (string)f["file"])))
                    foreach (var kv in Json.Obj(f["tables"]))
                    {
                        var t = db.GetTable(kv.Key);
                        var spec = Json.Obj(kv.Value);
                        Assert.Equal((string)spec["codec"], t.Codec, which + " " + kv.Key + " codec");
                        var want = Json.Arr(spec["rows"]);
                        var got = t.Decoded().All().ToList();
                        Assert.Equal(want.Count, got.Count, kv.Key + " rows");
                        for (int i = 0; i < want.Count; i++)
                        {
                            long key = (long)Json.Arr(want[i])[0];
                            var w = Expected(Json.Arr(want[i])[1]);
                            string what = which + " " + kv.Key + "[" + key + "]";
                            Assert.Equal(key, Keys.ToInt64(got[i].Key), what + " key");
                            Assert.True(Same(w, got[i].Value), what + ": want " + Show(w) + ", got " + Show(got[i].Value));
                            object one;
                            Assert.True(t.TryGetDecoded(key, out one) && Same(w, one), what + " TryGetDecoded: " + Show(one));
                            rows++;
                        }
                    }
            }
            Assert.True(rows > 90, "rows checked: " + rows);
        }

        [Test]
        public void JsonAndMsgpackTablesAgree()
        {
            var path = System.IO.Path.Combine(VectorTests.VectorDir(), "codecs_py.drydb");
            if (!File.Exists(path)) throw new SkipException(path + " not present");
            using (var db = Database.Open(path))
            {
                var j = db.GetTable("json_vals").Decoded().All().ToList();
                var m = db.GetTable("msgpack_vals").Decoded().All().ToList();
                Assert.True(j.Count > 40 && m.Count == j.Count + 2, "row counts");
                for (int i = 0; i < j.Count; i++) Assert.True(Same(j[i].Value, m[i].Value), "row " + i + ": " + Show(j[i].Value) + " vs " + Show(m[i].Value));
                // spot checks of the types a .NET user gets
                var t = db.GetTable("json_vals");
                Assert.Equal(ulong.MaxValue, (ulong)t.GetDecoded(21), "2^64-1 is a ulong");
                Assert.Equal(long.MinValue, (long)t.GetDecoded(20), "-2^63 is a long");
                Assert.Equal(1.0, (double)t.GetDecoded(24), "1.0 stays a double");
                Assert.Equal("h\u00e9llo \u2603 \U0001F600", (string)t.GetDecoded(33), "non-ASCII text");
                Assert.Bytes(new byte[] { 0, 1, 0xff }, (byte[])db.GetTable("msgpack_vals").GetDecoded(j.Count), "msgpack bin is byte[]");
            }
        }

        public sealed class Widget { public string Name { get; set; } public double Price; public List<string> Tags { get; set; } public int Qty; }
        public struct Point { public long X, Y; }

        [Test]
        public void TypedGetConverts()
        {
            var path = System.IO.Path.Combine(VectorTests.VectorDir(), "codecs_py.drydb");
            if (!File.Exists(path)) throw new SkipException(path + " not present");
            using (var db = Database.Open(path))
                foreach (var name in new[] { "json_vals", "msgpack_vals" })
                {
                    var t = db.GetTable(name);
                    long widget = t.Count() - (name == "json_vals" ? 1 : 3);
                    var w = t.Get<Widget>(widget);
                    Assert.Equal("widget", w.Name, name + " Name");
                    Assert.Equal(9.5, w.Price, name + " Price");
                    Assert.Equal("x,y", string.Join(",", w.Tags), name + " Tags");
                    Assert.Equal(3, w.Qty, name + " Qty");
                    Assert.Equal(65536, t.Get<int>(13), name + " int");
                    Assert.Equal(0.5m, t.Get<decimal>(22), name + " decimal");
                    Assert.Equal(null, t.Get<int?>(0), name + " null to int?");
                    int[] ints;
                    Assert.True(t.TryGetValue(39, out ints) && ints.Length == 20 && ints[19] == 19, name + " int[]");
                    var map = t.Get<IDictionary<string, long>>(42);
                    Assert.Equal(19L, map["k19"], name + " map");
                    Assert.Equal(null, t.Get<string>(-5), name + " absent: default");
                    Widget none;
                    Assert.False(t.TryGetValue(-5, out none), name + " absent: false");
                    Assert.Throws<OverflowException>(() => t.Get<byte>(11), name + " 256 to byte");
                    Assert.Throws<InvalidCastException>(() => t.Get<Widget>(3), name + " a number to a class");
                    var typed = t.Decoded<Widget>().Range(widget, widget + 1).Single();
                    Assert.Equal("widget", typed.Value.Name, name + " Decoded<T>().Range");
                    using (var c = t.OpenCursor())
                    {
                        Assert.True(c.Seek(1L) && (bool)c.DecodedValue, name + " cursor DecodedValue");
                        Assert.Bytes(t.Get(1L), c.Value, name + " cursor Value unchanged");
                    }
                }
            Assert.Throws<InvalidCastException>(() => Codecs.ConvertTo<int>("12"), "text is not a number");
            Assert.Throws<InvalidCastException>(() => Codecs.ConvertTo<string>(12L), "a number is not text");
            Assert.Equal(Status.Corrupt, Codecs.ConvertTo<Status>("corrupt"), "enum by name");
            Assert.Equal(Status.Corrupt, Codecs.ConvertTo<Status>(5L), "enum by value");
            Assert.Equal(7L, Codecs.ConvertTo<Point>(Json.Parse("{\"x\":7,\"y\":-1}")).X, "a struct by field names");
        }

        [Test]
        public void UnknownCodecNamesItRawStaysBytes()
        {
            var dir = Fx.Dir;
            var p = System.IO.Path.Combine(dir, "codecs-unknown.drydb");
            using (var b = new DatabaseBuilder())
            {
                b.CreateTable("odd", KeyKind.Int64, new TableOptions { Codec = "cs-never-registered" }).Append(1, Fx.B("v"));
                b.CreateTable("raw", KeyKind.Int64, new TableOptions { Codec = "raw" }).Append(1, Fx.B("{\"a\":1}"));
                b.CreateTable("plain", KeyKind.Int64).Append(1, Fx.B("[1]"));
                b.Build(p);
            }
            using (var db = Database.Open(p))
            {
                var odd = db.GetTable("odd");
                Assert.Str("v", odd.Get(1L), "bytes calls ignore the codec");
                foreach (var a in new Action[] { () => odd.GetDecoded(1), () => odd.Get<string>(1), () => odd.Decoded(), () => { using (var c = odd.OpenCursor()) { c.Next(); var x = c.DecodedValue; } } })
                {
                    var e = Assert.Throws<NotSupportedException>(a, "unknown codec");
                    Assert.True(e.Message.Contains("\"cs-never-registered\"") && e.Message.Contains("'odd'") && e.Message.Contains("Codecs.Register"), e.Message);
                }
                Codecs.Register("cs-never-registered", v => "decoded:" + Encoding.UTF8.GetString(v));
                Assert.Equal("decoded:v", (string)odd.GetDecoded(1), "registered after open");
                foreach (var name in new[] { "raw", "plain" })
                {
                    var t = db.GetTable(name);
                    Assert.Equal(name == "raw" ? "raw" : "", t.Codec, name + " codec");
                    Assert.Bytes(t.Get(1L), (byte[])t.GetDecoded(1), name + " stays bytes");
                    Assert.Bytes(t.Get(1L), t.Decoded().All().Single().Value as byte[], name + " rows stay bytes");
                    Assert.Bytes(t.Get(1L), t.Get<byte[]>(1), name + " Get<byte[]>");
                }
            }
            // an index of a json table: its lookups and cursors decode the rows' values
            var ip = System.IO.Path.Combine(dir, "codecs-index.drydb");
            using (var b = new DatabaseBuilder())
            {
                var t = b.CreateTable("people", KeyKind.Int64, new TableOptions { Codec = "json" });
                t.CreateIndex("by_name", KeyKind.String, (k, v) => Keys.String((string)Codecs.ConvertTo<Dictionary<string, object>>(Codecs.Decode("json", v))["name"]));
                t.Append(1, Fx.B("{\"name\":\"ann\",\"age\":41}"));
                t.Append(2, Fx.B("{\"name\":\"bob\",\"age\":7}"));
                b.Build(ip);
            }
            using (var db = Database.Open(ip))
            {
                var ix = db.GetTable("people").Index("by_name");
                Assert.Equal(7L, Json.Obj(ix.GetDecoded("bob"))["age"], "index GetDecoded");
                byte[] pk; object v;
                Assert.True(ix.TryGetDecoded("ann", out pk, out v) && Keys.ToInt64(pk) == 1 && (long)Json.Obj(v)["age"] == 41, "index TryGetDecoded");
                Assert.False(ix.TryGetDecoded("cy", out pk, out v) || ix.GetDecoded("cy") != null, "index: absent");
                using (var c = ix.OpenCursor())
                    Assert.True(c.Next() && (string)Json.Obj(c.DecodedValue)["name"] == "ann", "index cursor DecodedValue");
            }
            Assert.Throws<ArgumentException>(() => Codecs.Register("raw", v => v), "raw cannot be registered");
            Assert.Throws<ArgumentException>(() => Codecs.Register("a\nb", v => v), "a newline");
            Assert.Throws<NotSupportedException>(() => Codecs.Decode("nope", new byte[0]), "Decode of an unknown name");
        }

        // The json reader, text -> expected value (Show form) or null for an error.
        static readonly string[][] JsonCases =
        {
            new[] { " null ", "null" }, new[] { "true", "Boolean True" }, new[] { "0", "Int64 0" }, new[] { "-0", "Int64 0" },
            new[] { "9223372036854775807", "Int64 9223372036854775807" }, new[] { "9223372036854775808", "UInt64 9223372036854775808" },
            new[] { "18446744073709551616", "Double 1.8446744073709552E+19" }, new[] { "1.5e2", "Double 150" }, new[] { "-2E-1", "Double -0.2" },
            new[] { "NaN", "Double NaN" }, new[] { "1e400", "Double Infinity" }, new[] { "-1e400", "Double -Infinity" }, new[] { "1e-400", "Double 0" }, new[] { "-Infinity", "Double -Infinity" },
            new[] { "\"a\\u00e9\\ud83d\\ude00\\n\\/\"", "String a\u00e9\U0001F600\n/" }, new[] { "[1,[],{}]", "[Int64 1,[],{}]" },
            new[] { "{\"a\":1,\"a\":2}", "{a:Int64 2}" }, new[] { " [ 1 , 2 ] ", "[Int64 1,Int64 2]" },
            new[] { "", null }, new[] { "01", null }, new[] { "1.", null }, new[] { "[1,]", null }, new[] { "{\"a\" 1}", null },
            new[] { "\"a", null }, new[] { "\"\t\"", null }, new[] { "\"\\x\"", null }, new[] { "\"\\u12\"", null }, new[] { "tru", null },
            new[] { "1 2", null }, new[] { "{1:2}", null }, new[] { "+1", null }, new[] { "[", null },
        };

        // msgpack hex -> expected (Show form) or null for an error.
        static readonly string[][] MsgpackCases =
        {
            new[] { "c0", "null" }, new[] { "c3", "Boolean True" }, new[] { "7f", "Int64 127" }, new[] { "e0", "Int64 -32" },
            new[] { "cc ff", "Int64 255" }, new[] { "cd ffff", "Int64 65535" }, new[] { "ce ffffffff", "Int64 4294967295" },
            new[] { "cf ffffffffffffffff", "UInt64 18446744073709551615" }, new[] { "d0 80", "Int64 -128" }, new[] { "d1 8000", "Int64 -32768" },
            new[] { "d2 80000000", "Int64 -2147483648" }, new[] { "d3 8000000000000000", "Int64 -9223372036854775808" },
            new[] { "ca 3fc00000", "Double 1.5" }, new[] { "cb 3ff8000000000000", "Double 1.5" },
            new[] { "a3 616263", "String abc" }, new[] { "d9 02 c3a9", "String \u00e9" }, new[] { "da 0001 7a", "String z" }, new[] { "db 00000000", "String " },
            new[] { "c4 02 0102", "bytes 0102" }, new[] { "c5 0000", "bytes " }, new[] { "c6 00000001 ff", "bytes ff" },
            new[] { "92 01 90", "[Int64 1,[]]" }, new[] { "dc 0001 c2", "[Boolean False]" }, new[] { "dd 00000000", "[]" },
            new[] { "81 a1 61 80", "{a:{}}" }, new[] { "de 0001 a1 62 01", "{b:Int64 1}" }, new[] { "df 00000000", "{}" },
            new[] { "d6 ff 00000001", "DateTime " + new DateTime(1970, 1, 1, 0, 0, 1, DateTimeKind.Utc).ToString(System.Globalization.CultureInfo.InvariantCulture) },
            new[] { "", null }, new[] { "c1", null }, new[] { "cd ff", null }, new[] { "a3 6162", null }, new[] { "c4 05 01", null },
            new[] { "dd ffffffff", null }, new[] { "df ffffffff", null }, new[] { "81 01 02", null }, new[] { "c0 c0", null },
            new[] { "d4 05 00", null }, new[] { "a2 c328", null }, new[] { "c7 03 ff 000000", null },
        };

        [Test]
        public void ReadersCaseByCase()
        {
            int n = 0;
            foreach (var c in JsonCases) Case("json", Encoding.UTF8.GetBytes(c[0]), c[1], c[0]);
            foreach (var c in MsgpackCases) Case("msgpack", Keys.FromHex(c[0].Replace(" ", "")), c[1], c[0]);
            // nesting is bounded, not a stack overflow
            Case("json", Encoding.UTF8.GetBytes(new string('[', 100000)), null, "deep json");
            Case("msgpack", Enumerable.Repeat((byte)0x91, 100000).ToArray(), null, "deep msgpack");
            Case("json", new byte[] { 0x22, 0xff, 0x22 }, null, "json not UTF-8");
            n = JsonCases.Length + MsgpackCases.Length;
            Assert.True(n > 60, "cases");
        }

        // Hostile values: random bytes, and valid encodings with a byte changed
        // or cut short, give a value or a FormatException, never another
        // exception, a hang or a huge allocation (lengths are checked first).
        [Test]
        public void HostileValuesFailCleanly()
        {
            var rnd = new Random(18);
            var seeds = MsgpackCases.Where(c => c[1] != null).Select(c => Keys.FromHex(c[0].Replace(" ", ""))).ToList();
            var jseeds = JsonCases.Where(c => c[1] != null).Select(c => Encoding.UTF8.GetBytes(c[0])).ToList();
            int values = 0, errors = 0;
            for (int round = 0; round < 30000; round++)
            {
                bool json = round % 2 == 0;
                var src = (json ? jseeds : seeds)[rnd.Next(json ? jseeds.Count : seeds.Count)];
                byte[] b;
                switch (round % 3)
                {
                    case 0: b = new byte[rnd.Next(24)]; rnd.NextBytes(b); break;
                    case 1: b = (byte[])src.Clone(); if (b.Length > 0) b[rnd.Next(b.Length)] = (byte)rnd.Next(256); break;
                    default: b = src.Take(rnd.Next(src.Length + 1)).ToArray(); break;
                }
                try { Codecs.Decode(json ? "json" : "msgpack", b); values++; }
                catch (FormatException) { errors++; }
                catch (Exception e) { throw new Exception((json ? "json " : "msgpack ") + Keys.ToHex(b) + ": " + e.GetType().Name + ": " + e.Message); }
            }
            Assert.True(values > 1000 && errors > 1000, "values " + values + ", errors " + errors);
        }

        static void Case(string codec, byte[] input, string want, string what)
        {
            if (want == null) { Assert.Throws<FormatException>(() => Codecs.Decode(codec, input), codec + " " + what); return; }
            Assert.Equal(want, Show(Codecs.Decode(codec, input)), codec + " " + what);
        }
    }
}
