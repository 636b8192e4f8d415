// RangeCaseTests.cs - the shared range cases (tests/vectors/ranges.json, made
// by tests/vectors/gen/ranges.py; every language runs them): the three tables
// built with the C# builder, every case through Range and Count, with the
// two-key call for "default" ([lo, hi)) and Bound.Inclusive/Exclusive for the
// explicit conventions. Composite keys and prefixes go in as Key.Tuple.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class RangeCaseTests
    {
        static Dictionary<string, object> D(object o) { return (Dictionary<string, object>)o; }
        static List<object> L(object o) { return (List<object>)o; }

        // A case's key (or bound) as a C# Key: long, string, or a tuple of them.
        static Key ToKey(object j)
        {
            if (j is long) return (long)j;
            if (j is string) return (string)j;
            var parts = L(j).Select(p => p is long ? (Key)(long)p : (Key)(string)p).ToArray();
            return Key.Tuple(parts);
        }

        // Compact JSON of a key, as the generator writes it (UTF-8, not escaped).
        static string JsonOf(object j)
        {
            if (j is long) return ((long)j).ToString(CultureInfo.InvariantCulture);
            if (j is string) return "\"" + ((string)j).Replace("\\", "\\\\").Replace("\"", "\\\"") + "\"";
            return "[" + string.Join(",", L(j).Select(JsonOf)) + "]";
        }

        // A key read back, decoded by the table's kind, as JSON text.
        static string Decode(string kind, byte[] key)
        {
            if (kind == "ints") return Keys.ToInt64(key).ToString(CultureInfo.InvariantCulture);
            if (kind == "strs") return JsonOf(Encoding.UTF8.GetString(key));
            // ("s", n): the string part (escaped 0x00 -> 0x00 0xFF, ended by 0x00 0x01), then 8 bytes
            var s = new List<byte>();
            int i = 0;
            for (; !(key[i] == 0 && key[i + 1] == 1); i++)
            {
                s.Add(key[i]);
                if (key[i] == 0) i++;
            }
            var n = new byte[8];
            Array.Copy(key, i + 2, n, 0, 8);
            return "[" + JsonOf(Encoding.UTF8.GetString(s.ToArray())) + "," + Keys.ToInt64(n).ToString(CultureInfo.InvariantCulture) + "]";
        }

        [Test]
        public void SharedRangeCases()
        {
            var path = System.IO.Path.Combine(VectorTests.VectorDir(), "ranges.json");
            if (!File.Exists(path)) throw new SkipException(path + " not present (set DRYDB_VECTORS to tests/vectors)");
            var doc = D(Json.Parse(File.ReadAllText(path)));
            byte[] image;
            using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 512 })) // small pages: ranges cross leaves
            {
                foreach (var t in L(doc["tables"]).Select(D))
                {
                    string name = (string)t["name"];
                    var tb = t["key"] is string
                        ? b.CreateTable(name, (string)t["key"] == "int64" ? KeyKind.Int64 : KeyKind.String)
                        : b.CreateTable(name, L(t["key"]).Select(k => (string)k == "int64" ? KeyKind.Int64 : KeyKind.String).ToArray(),
                                        new TableOptions { Compression = Compression.Zstd });
                    foreach (var row in L(t["rows"])) tb.Append(ToKey(row), Encoding.UTF8.GetBytes("v:" + JsonOf(row)));
                }
                image = b.BuildToMemory();
            }
            int n = 0;
            var failures = new List<string>();
            using (var db = Database.OpenMemory(image))
            {
                foreach (var c in L(doc["cases"]).Select(D))
                {
                    string tname = (string)c["table"], conv = (string)c["bounds"];
                    var t = db.GetTable(tname);
                    bool reverse = (bool)c["reverse"];
                    Key lo = c["lo"] == null ? default(Key) : ToKey(c["lo"]), hi = c["hi"] == null ? default(Key) : ToKey(c["hi"]);
                    List<KeyValuePair<byte[], byte[]>> rows;
                    long count;
                    if (conv == "default")
                    {
                        rows = t.Range(lo, hi, reverse).ToList();
                        count = t.Count(lo, hi);
                    }
                    else
                    {
                        Bound l = lo.IsNull ? Bound.Unbounded : conv[0] == '[' ? Bound.Inclusive(lo) : Bound.Exclusive(lo);
                        Bound h = hi.IsNull ? Bound.Unbounded : conv[1] == ']' ? Bound.Inclusive(hi) : Bound.Exclusive(hi);
                        rows = t.Range(l, h, reverse).ToList();
                        count = t.Count(l, h);
                    }
                    var want = L(c["keys"]).Select(JsonOf).ToList();
                    var got = rows.Select(r => Decode(tname, r.Key)).ToList();
                    string what = string.Format("{0} {1} {2} {3} reverse={4}", tname, c["lo"] == null ? "null" : JsonOf(c["lo"]), c["hi"] == null ? "null" : JsonOf(c["hi"]), conv, reverse);
                    if (!got.SequenceEqual(want)) failures.Add(what + ": range [" + string.Join(" ", got) + "], want [" + string.Join(" ", want) + "]");
                    if (count != (long)c["count"]) failures.Add(what + ": count " + count + ", want " + c["count"]);
                    foreach (var r in rows)
                        if (Encoding.UTF8.GetString(r.Value) != "v:" + Decode(tname, r.Key)) failures.Add(what + ": value " + Encoding.UTF8.GetString(r.Value));
                    n++;
                }
            }
            Assert.True(failures.Count == 0, failures.Count + " of " + n + " cases fail:\n" + string.Join("\n", failures.Take(20)));
            Assert.True(n >= 100, "only " + n + " cases");
        }
    }
}
