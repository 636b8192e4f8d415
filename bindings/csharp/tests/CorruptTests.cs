// CorruptTests.cs - corruption from outside, read through C#.
//
// The corpus of tests/corrupt/gen (a base file using every feature and ~380
// damaged copies: bit flips on every page, zeroed pages, truncations,
// appended garbage, overwritten runs) is taken from DRYDB_CORRUPT_DIR, else
// generated with `go run ./tests/corrupt/gen DIR` (skipped without go).
// Every variant is opened and every table read in full: TryGet, TryGetAt,
// GetMany, missing keys, cursor walk, Range both ways, counts, and per index
// TryGet, Count per key, Range both ways. Each answer must be the base
// file's, or the call must throw DryDBException with Status.Corrupt (open
// may also give Status.Version). A wrong answer, another exception or a
// crash fails. Then the base file rewritten in place, and truncated, while
// open.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class CorruptTests
    {
        static readonly object gate = new object();
        static string corpusDir;

        static List<object> L(object o) { return o == null ? new List<object>() : (List<object>)o; }
        static Dictionary<string, object> D(object o) { return (Dictionary<string, object>)o; }
        static byte[] H(object o) { return o == null ? null : Keys.FromHex((string)o); }

        static string RepoRoot()
        {
            var t = Environment.GetEnvironmentVariable("DRYDB_CS_TESTS"); // bindings/csharp/tests
            if (!string.IsNullOrEmpty(t)) return System.IO.Path.GetFullPath(System.IO.Path.Combine(t, "../../.."));
            return System.IO.Path.GetFullPath(System.IO.Path.Combine(AppDomain.CurrentDomain.BaseDirectory, "../../.."));
        }

        static string FindGo()
        {
            foreach (var d in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Concat(new[] { "/usr/local/go/bin", "/usr/lib/go/bin" }))
            {
                if (string.IsNullOrEmpty(d)) continue;
                var p = System.IO.Path.Combine(d, "go");
                if (File.Exists(p)) return p;
            }
            return null;
        }

        static string Corpus()
        {
            lock (gate)
            {
                if (corpusDir != null) return corpusDir;
                var env = Environment.GetEnvironmentVariable("DRYDB_CORRUPT_DIR");
                if (!string.IsNullOrEmpty(env) && File.Exists(System.IO.Path.Combine(env, "manifest.json"))) return corpusDir = env;
                var go = FindGo();
                if (go == null) throw new SkipException("go toolchain not found: cannot generate tests/corrupt variants (or set DRYDB_CORRUPT_DIR)");
                var root = RepoRoot();
                if (!File.Exists(System.IO.Path.Combine(root, "tests/corrupt/gen/main.go"))) throw new SkipException("tests/corrupt/gen not found under " + root);
                var dir = System.IO.Path.Combine(Fx.Dir, "corrupt");
                var psi = new ProcessStartInfo(go, "run ./tests/corrupt/gen \"" + dir + "\"")
                {
                    WorkingDirectory = root, UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true,
                };
                using (var p = Process.Start(psi))
                {
                    string err = p.StandardError.ReadToEnd();
                    p.StandardOutput.ReadToEnd();
                    if (!p.WaitForExit(300000)) { p.Kill(); throw new Exception("go run ./tests/corrupt/gen timed out"); }
                    if (p.ExitCode != 0) throw new Exception("go run ./tests/corrupt/gen failed: " + err);
                }
                return corpusDir = dir;
            }
        }

        sealed class TableExp
        {
            public string Name;
            public long Rows;
            public List<KeyValuePair<byte[], byte[]>> Entries;
            public Dictionary<byte[], byte[]> ByKey;
            public List<byte[]> Missing;
            public List<Dictionary<string, object>> Counts;
            public List<IndexExp> Indexes;
        }

        sealed class IndexExp
        {
            public string Name;
            public List<KeyValuePair<byte[], byte[]>> Entries; // index key, primary key
        }

        static List<TableExp> LoadExpected(string dir, out int pageSize)
        {
            var e = D(Json.Parse(File.ReadAllText(System.IO.Path.Combine(dir, "expected.json"))));
            pageSize = Convert.ToInt32(e["page_size"]);
            var r = new List<TableExp>();
            foreach (var t in L(e["tables"]).Select(D))
            {
                var te = new TableExp
                {
                    Name = (string)t["name"],
                    Rows = Convert.ToInt64(t["rows"]),
                    Entries = L(t["entries"]).Select(x => new KeyValuePair<byte[], byte[]>(H(L(x)[0]), H(L(x)[1]))).ToList(),
                    Missing = L(t["missing"]).Select(H).ToList(),
                    Counts = L(t["counts"]).Select(D).ToList(),
                    Indexes = L(t["indexes"]).Select(D).Select(x => new IndexExp
                    {
                        Name = (string)x["name"],
                        Entries = L(x["entries"]).Select(y => new KeyValuePair<byte[], byte[]>(H(L(y)[0]), H(L(y)[1]))).ToList(),
                    }).ToList(),
                };
                te.ByKey = te.Entries.ToDictionary(x => x.Key, x => x.Value, Keys.EqualityComparer);
                r.Add(te);
            }
            return r;
        }

        /// <summary>Reads one open database against the expectations. A wrong
        /// answer throws; a DryDBException with Status.Corrupt is counted
        /// (unless strict); anything else propagates.</summary>
        sealed class Reader
        {
            readonly List<TableExp> exp;
            readonly string label;
            readonly bool strict;
            public int Detected, Calls;

            public Reader(List<TableExp> exp, string label, bool strict = false) { this.exp = exp; this.label = label; this.strict = strict; }

            void Wrong(string what) { throw new Exception("WRONG ANSWER: " + label + ": " + what); }

            // true: the call ran (check its answer); false: it reported corruption
            bool Call(Action a)
            {
                Calls++;
                try { a(); return true; }
                catch (DryDBException e) when (!strict && e.Code == Status.Corrupt) { Detected++; return false; }
            }

            static bool Same(byte[] a, byte[] b) { return a != null && b != null && Keys.Equal(a, b); }

            void Walk<T>(Func<IEnumerable<T>> seq, IList<T> want, Func<T, T, bool> eq, string what)
            {
                int i = 0;
                bool done = Call(() =>
                {
                    foreach (var x in seq())
                    {
                        if (i >= want.Count) Wrong(what + ": more than " + want.Count + " rows");
                        if (!eq(x, want[i])) Wrong(what + ": row " + i);
                        i++;
                    }
                });
                if (done && i != want.Count) Wrong(what + ": ended after " + i + " of " + want.Count + " rows");
            }

            public void Read(Database db)
            {
                foreach (var te in exp) ReadTable(db, te);
                Call(() => db.Verify());
            }

            void ReadTable(Database db, TableExp te)
            {
                string w = te.Name;
                Table t = null;
                if (!Call(() => t = db.GetTable(te.Name))) return;
                if (t.Info.Rows != te.Rows) Wrong(w + " rows");
                var ents = te.Entries;
                for (int i = 0; i < ents.Count; i++)
                {
                    byte[] v = null, k = null;
                    bool found = false;
                    if (Call(() => found = t.TryGet(ents[i].Key, out v)) && (!found || !Same(ents[i].Value, v))) Wrong(w + " TryGet " + Keys.ToHex(ents[i].Key));
                    if (i % 7 == 0 && Call(() => found = t.TryGetAt(i, out k, out v)) && (!found || !Same(ents[i].Key, k) || !Same(ents[i].Value, v))) Wrong(w + " TryGetAt " + i);
                }
                byte[][] many = null;
                if (Call(() => many = t.GetMany(ents.Select(x => x.Key).ToList())))
                    for (int i = 0; i < ents.Count; i++) if (!Same(ents[i].Value, many[i])) Wrong(w + " GetMany " + i);
                foreach (var m in te.Missing)
                {
                    byte[] v = null;
                    bool found = false;
                    if (Call(() => found = t.TryGet(m, out v)) && found) Wrong(w + " missing key found " + Keys.ToHex(m));
                }
                Func<KeyValuePair<byte[], byte[]>, KeyValuePair<byte[], byte[]>, bool> kvEq = (a, b) => Same(a.Key, b.Key) && Same(a.Value, b.Value);
                Walk(() => CursorRows(t), ents, kvEq, w + " cursor");
                Walk(() => t.All(), ents, kvEq, w + " All");
                var rev = ents.AsEnumerable().Reverse().ToList();
                Walk(() => t.All(reverse: true), rev, kvEq, w + " All reverse");
                foreach (var c in te.Counts)
                {
                    var lo = B(c["lo"], c["lo_kind"]);
                    var hi = B(c["hi"], c["hi_kind"]);
                    long want = Convert.ToInt64(c["count"]), got = -1;
                    if (Call(() => got = t.Count(lo, hi)) && got != want) Wrong(w + " Count " + lo + ".." + hi + ": " + got + " != " + want);
                }
                foreach (var xe in te.Indexes)
                {
                    SecondaryIndex ix = null;
                    string iw = w + "." + xe.Name;
                    if (!Call(() => ix = t.Index(xe.Name))) continue;
                    foreach (var g in xe.Entries.GroupBy(x => Keys.ToHex(x.Key)))
                    {
                        var ik = Keys.FromHex(g.Key);
                        var firstPk = g.First().Value;
                        byte[] pk = null, v = null;
                        bool found = false;
                        if (Call(() => found = ix.TryGet(ik, out pk, out v)) && (!found || !Same(firstPk, pk) || !Same(te.ByKey[firstPk], v))) Wrong(iw + " TryGet " + g.Key);
                        long n = -1;
                        if (Call(() => n = ix.Count(Bound.Inclusive(ik), Bound.Inclusive(ik))) && n != g.Count()) Wrong(iw + " Count " + g.Key + ": " + n);
                    }
                    var want = xe.Entries.Select(x => new IndexEntry { IndexKey = x.Key, PrimaryKey = x.Value, Value = te.ByKey[x.Value] }).ToList();
                    Func<IndexEntry, IndexEntry, bool> ieEq = (a, b) => Same(a.IndexKey, b.IndexKey) && Same(a.PrimaryKey, b.PrimaryKey) && Same(a.Value, b.Value);
                    Walk(() => ix.Range(Bound.Unbounded, Bound.Unbounded), want, ieEq, iw + " Range");
                    want.Reverse();
                    Walk(() => ix.Range(Bound.Unbounded, Bound.Unbounded, reverse: true), want, ieEq, iw + " Range reverse");
                }
            }

            static IEnumerable<KeyValuePair<byte[], byte[]>> CursorRows(Table t)
            {
                using (var c = t.OpenCursor())
                    while (c.Next()) yield return new KeyValuePair<byte[], byte[]>(c.Key, c.Value);
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
        }

        [Test]
        public void EveryVariantRightOrCorrupt()
        {
            var dir = Corpus();
            var man = D(Json.Parse(File.ReadAllText(System.IO.Path.Combine(dir, "manifest.json"))));
            int ps;
            var exp = LoadExpected(dir, out ps);
            using (var db = Database.Open(System.IO.Path.Combine(dir, (string)man["base"]), new DatabaseOptions { Verify = true }))
            {
                var r = new Reader(exp, "base", strict: true);
                r.Read(db);
                Assert.True(r.Calls > 1500, "calls on the base file: " + r.Calls);
            }
            int variants = 0, atOpen = 0, atRead = 0, harmless = 0;
            var wrong = new List<string>();
            foreach (var v in L(man["variants"]).Select(D))
            {
                variants++;
                string label = string.Format("{0} ({1} at {2}: {3})", v["file"], v["kind"], v["offset"], v["detail"]);
                Database db;
                try { db = Database.Open(System.IO.Path.Combine(dir, (string)v["file"])); }
                catch (DryDBException e) when (e.Code == Status.Corrupt || e.Code == Status.Version) { atOpen++; continue; }
                try
                {
                    var r = new Reader(exp, label);
                    r.Read(db);
                    if (r.Detected > 0) atRead++; else harmless++;
                }
                catch (Exception e) { wrong.Add(label + ": " + e.Message); }
                finally { db.Dispose(); }
            }
            Console.WriteLine("C# corrupt: {0} variants: {1} detected at open, {2} detected at read, {3} harmless, {4} wrong",
                variants, atOpen, atRead, harmless, wrong.Count);
            foreach (var w in wrong) Console.WriteLine("  " + w);
            Assert.True(wrong.Count == 0, wrong.Count + " variants gave a wrong answer or another error (listed above)");
            Assert.True(variants >= 300, "variants: " + variants);
            Assert.True(atOpen + atRead > variants / 2, "most damage is detected");
        }

        static void ChangedWhileOpen(string how, bool warm)
        {
            var dir = Corpus();
            int ps;
            var exp = LoadExpected(dir, out ps);
            var path = System.IO.Path.Combine(Fx.Dir, "changed-" + how + (warm ? "-warm" : "-cold") + ".drydb");
            File.Copy(System.IO.Path.Combine(dir, "base.drydb"), path, true);
            var old = File.ReadAllBytes(path);
            using (var db = Database.Open(path))
            {
                if (warm) new Reader(exp, "before " + how, strict: true).Read(db);
                if (how == "truncate")
                {
                    using (var f = new FileStream(path, FileMode.Open, FileAccess.Write)) f.SetLength(old.Length / 2);
                }
                else
                {
                    var nw = new byte[old.Length];
                    if (how == "rewrite-random") new Random(7).NextBytes(nw);
                    else { Array.Copy(old, ps, nw, 0, old.Length - ps); Array.Copy(old, 0, nw, old.Length - ps, ps); }
                    // FileMode.Open: same inode, so the mapping sees the new bytes
                    using (var f = new FileStream(path, FileMode.Open, FileAccess.Write)) { f.Write(nw, 0, nw.Length); f.Flush(true); }
                }
                var r = new Reader(exp, how + " while open (" + (warm ? "warm" : "cold") + ")");
                r.Read(db);
                Console.WriteLine("C# {0} while open ({1}): {2} calls, {3} corrupt errors, 0 wrong", how, warm ? "warm" : "cold", r.Calls, r.Detected);
                if (!warm) Assert.True(r.Detected > 0, "the change is detected");
            }
            Assert.Status(Status.Corrupt, () => Database.Open(path).Dispose(), "reopen after " + how);
            File.Delete(path);
        }

        [Test] public void RewrittenInPlaceWhileOpenRandom() { ChangedWhileOpen("rewrite-random", false); ChangedWhileOpen("rewrite-random", true); }
        [Test] public void RewrittenInPlaceWhileOpenShifted() { ChangedWhileOpen("rewrite-shifted", false); ChangedWhileOpen("rewrite-shifted", true); }
        [Test] public void TruncatedWhileOpenAfterReading() { ChangedWhileOpen("truncate", false); ChangedWhileOpen("truncate", true); }
    }
}
