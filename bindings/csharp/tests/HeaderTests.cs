// HeaderTests.cs - the binding's copies of include/drydb.h (status codes, key
// kinds, bound kinds, compression kinds, flags, limits, format names, the
// info structures' sizes and field offsets), and of capi/drydb_bindings.h's
// private constants, checked against the headers' text, so that neither side
// can change without the other (as bindings/python/tests/test_header.py does
// for Python).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class HeaderTests
    {
        // The repository's file: DRYDB_HEADER (drydb.h), else found from the
        // tests' directory (DRYDB_CS_TESTS: bindings/csharp/tests).
        static string Read(string env, string rel)
        {
            var p = Environment.GetEnvironmentVariable(env);
            if (string.IsNullOrEmpty(p))
            {
                var tests = Environment.GetEnvironmentVariable("DRYDB_CS_TESTS");
                if (string.IsNullOrEmpty(tests)) throw new SkipException("set DRYDB_CS_TESTS or " + env);
                p = System.IO.Path.Combine(tests, "..", "..", "..", rel);
            }
            if (!File.Exists(p)) throw new SkipException(p + " not found (set " + env + ")");
            return File.ReadAllText(p);
        }

        static string Header { get { return Read("DRYDB_HEADER", "include/drydb.h"); } }

        // #define DRYDB_X <integer> (hex, negative, u suffix, in parentheses).
        static Dictionary<string, long> Defines(string text)
        {
            var d = new Dictionary<string, long>();
            foreach (Match m in Regex.Matches(text, @"^#define (DRYDB_\w+)\s+\(?(-?)(0x[0-9a-fA-F]+|\d+)u?l*\)?(?:\s|$)", RegexOptions.Multiline))
            {
                var s = m.Groups[3].Value;
                long v = s.StartsWith("0x") ? long.Parse(s.Substring(2), NumberStyles.HexNumber, CultureInfo.InvariantCulture) : long.Parse(s, CultureInfo.InvariantCulture);
                d[m.Groups[1].Value] = m.Groups[2].Value == "-" ? -v : v;
            }
            return d;
        }

        // Every DRYDB_<prefix>NAME define against the enum member of that name
        // (case and underscores ignored; aliases for the names that differ),
        // both ways: none missing on either side.
        static void SameSet<E>(Dictionary<string, long> defs, Func<string, bool> isMember, string prefix, Dictionary<string, string> alias = null)
        {
            var want = defs.Where(kv => isMember(kv.Key)).ToDictionary(kv => kv.Key.Substring(prefix.Length), kv => kv.Value);
            Assert.True(want.Count > 0, "no DRYDB_" + prefix + "* in the header");
            var names = Enum.GetNames(typeof(E));
            foreach (var kv in want)
            {
                string n = alias != null && alias.ContainsKey(kv.Key) ? alias[kv.Key] : kv.Key.Replace("_", "");
                var m = names.FirstOrDefault(x => string.Equals(x, n, StringComparison.OrdinalIgnoreCase));
                Assert.True(m != null, typeof(E).Name + " has no member for " + prefix + kv.Key);
                Assert.Equal(kv.Value, Convert.ToInt64(Enum.Parse(typeof(E), m)), prefix + kv.Key);
            }
            Assert.Equal(want.Count, names.Length, typeof(E).Name + ": members the header does not define");
        }

        static readonly string[] NotStatus = { "DRYDB_UNBOUNDED", "DRYDB_INCLUSIVE", "DRYDB_EXCLUSIVE", "DRYDB_REVERSE", "DRYDB_H", "DRYDB_DICTIONARY", "DRYDB_HASH" };

        [Test]
        public void StatusCodes()
        {
            var d = Defines(Header);
            SameSet<Status>(d, k => Regex.IsMatch(k, "^DRYDB_[A-Z]+$") && d[k] < 100 && !NotStatus.Contains(k), "DRYDB_",
                            new Dictionary<string, string> { { "NOMEM", "NoMemory" } });
            Assert.Equal(d["DRYDB_OK"], (long)Native.OK, "Native.OK");
            Assert.Equal(d["DRYDB_NOTFOUND"], (long)Native.NOTFOUND, "Native.NOTFOUND");
            Assert.Equal(d["DRYDB_INVALID"], (long)Native.INVALID, "Native.INVALID");
            Assert.Equal(d["DRYDB_CLOSED"], (long)Native.CLOSED, "Native.CLOSED");
            Assert.Equal(d["DRYDB_BADHANDLE"], (long)Native.BADHANDLE, "Native.BADHANDLE");
        }

        [Test]
        public void KindsFlagsAndLimits()
        {
            var d = Defines(Header);
            SameSet<KeyKind>(d, k => k.StartsWith("DRYDB_KEY_"), "DRYDB_KEY_");
            SameSet<Compression>(d, k => k.StartsWith("DRYDB_COMPRESS_"), "DRYDB_COMPRESS_");
            SameSet<BoundKind>(d, k => k == "DRYDB_UNBOUNDED" || k == "DRYDB_INCLUSIVE" || k == "DRYDB_EXCLUSIVE", "DRYDB_");
            Assert.Equal(d["DRYDB_UNBOUNDED"], (long)Native.UNBOUNDED, "Native.UNBOUNDED");
            Assert.Equal(d["DRYDB_INCLUSIVE"], (long)Native.INCLUSIVE, "Native.INCLUSIVE");
            Assert.Equal(d["DRYDB_EXCLUSIVE"], (long)Native.EXCLUSIVE, "Native.EXCLUSIVE");
            Assert.Equal(d["DRYDB_REVERSE"], (long)Native.REVERSE, "Native.REVERSE");
            Assert.Equal(d["DRYDB_DICTIONARY"], (long)Native.Dictionary, "Native.Dictionary");
            Assert.Equal(d["DRYDB_HASH"], (long)Native.HashOn, "Native.HashOn");
            Assert.Equal(d["DRYDB_NO_HASH"], (long)Native.NoHash, "Native.NoHash");
            Assert.Equal(d["DRYDB_MAX_PARTS"], (long)Native.MaxParts, "Native.MaxParts");
            Assert.Equal(d["DRYDB_VERSION_MAJOR"], (long)Native.MajorVersion, "Native.MajorVersion");
            var h = Header;
            Assert.True(Regex.IsMatch(h, "#define DRYDB_FORMAT_NATIVE\\s+\"" + Regex.Escape(FileFormat.Native) + "\""), "FileFormat.Native");
            Assert.True(Regex.IsMatch(h, "#define DRYDB_FORMAT_DRYDB14\\s+\"" + Regex.Escape(FileFormat.DryDB14) + "\""), "FileFormat.DryDB14");
        }

        [Test]
        public void BindingsHeader()
        {
            var d = Defines(Read("DRYDB_BINDINGS_HEADER", "capi/drydb_bindings.h"));
            Assert.Equal(d["DRYDB__FULL"], (long)Native.FULL, "Native.FULL");
            if (d.ContainsKey("DRYDB__MAX_BATCH")) Assert.Equal(d["DRYDB__MAX_BATCH"], (long)Native.MaxBatch, "Native.MaxBatch");
        }

        // struct drydb_x { ... }; /* size N */ with "/* offset" comments per field.
        [Test]
        public void StructLayouts()
        {
            var h = Header;
            var d = Defines(h);
            var types = new Dictionary<string, Type>
            {
                { "drydb_db_info", typeof(NativeDbInfo) }, { "drydb_table_info", typeof(NativeTableInfo) },
                { "drydb_index_info", typeof(NativeIndexInfo) }, { "drydb_cache_stats", typeof(NativeCacheStats) },
            };
            int seen = 0;
            foreach (Match m in Regex.Matches(h, @"struct (drydb_\w+) \{\n(.*?)\n\};\s*/\* size (\d+) \*/", RegexOptions.Singleline))
            {
                Type t;
                if (!types.TryGetValue(m.Groups[1].Value, out t)) continue;
                string what = m.Groups[1].Value;
                int size = int.Parse(m.Groups[3].Value, CultureInfo.InvariantCulture);
                Assert.Equal(size, Marshal.SizeOf(t), what + " size");
                Assert.Equal((long)size, d["DRYDB_" + what.Substring("drydb_".Length).ToUpperInvariant() + "_SIZE"], what + " size define");
                var fields = Regex.Matches(m.Groups[2].Value, @"^\s+\w+\s+(\w+)(?:\[\w+\])?;\s*/\*\s*(\d+)", RegexOptions.Multiline).Cast<Match>().ToList();
                var mine = t.GetFields().Select(f => f.Name).ToList();
                Assert.Equal(string.Join(",", fields.Select(f => f.Groups[1].Value)), string.Join(",", mine), what + " fields");
                foreach (var f in fields)
                    Assert.Equal(int.Parse(f.Groups[2].Value, CultureInfo.InvariantCulture), (int)Marshal.OffsetOf(t, f.Groups[1].Value), what + "." + f.Groups[1].Value);
                seen++;
            }
            Assert.Equal(types.Count, seen, "structs found in the header");
        }
    }
}
