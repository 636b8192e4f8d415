// TeardownTests.cs - a file truncated (to 0, to half) while threads iterate an
// int64 and a string table, and Dispose racing threads that read, each in a
// child process (mono DryDB.Tests.exe --child ...): before the copy-out calls
// (CopyOut.cs) the binding copied from the mapping in managed code, and a
// truncation killed Mono with SIGSEGV in 5 of 5 runs; a crash in the child
// fails the test instead of ending the run. Every thread must end with the
// expected exception (DryDBException with Status.Corrupt; ObjectDisposedException),
// every answer before it right.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;

namespace DryDB.Tests
{
    [TestClass]
    public sealed unsafe class TeardownTests
    {
        const int Rows = 20000;
        static readonly object gate = new object();
        static string file;

        static string Value(long k) { return "value-" + k.ToString("D8"); }
        static string StrValue(int i) { return new string('s', i % 50) + i; }

        // ints: int64 keys 0..Rows-1, same-size values, index by_mod (key % 7);
        // strs: string keys "k000000".., values of varying length. Uncompressed:
        // the engine's cache does not recover from a fault while it decodes a
        // block (a later read of that block waits forever), so truncating
        // compressed tables is left out.
        static string File()
        {
            lock (gate)
            {
                if (file != null) return file;
                var p = Path.Combine(Fx.Dir, "teardown.drydb");
                using (var b = new DatabaseBuilder())
                {
                    // strs first: a cut at half the file falls inside ints, where
                    // the readers spend most of their time
                    var s = b.CreateTable("strs", KeyKind.String);
                    for (int i = 0; i < Rows; i++) s.Append("k" + i.ToString("D6"), Fx.B(StrValue(i)));
                    var t = b.CreateTable("ints", KeyKind.Int64);
                    t.CreateIndex("by_mod", KeyKind.Int64, (k, v) => Keys.Int64(Keys.ToInt64(k) % 7));
                    for (long i = 0; i < Rows; i++) t.Append(i, Fx.B(Value(i)));
                    b.Build(p);
                }
                return file = p;
            }
        }

        static void RunChild(string mode, int rounds)
        {
            var src = File();
            var path = Path.Combine(Fx.Dir, "teardown-" + mode + ".drydb");
            System.IO.File.Copy(src, path, true);
            var psi = new ProcessStartInfo
            {
                FileName = Process.GetCurrentProcess().MainModule.FileName, // mono
                Arguments = string.Format("--debug \"{0}\" --child {1} \"{2}\" {3} 4", typeof(Runner).Assembly.Location, mode, path, rounds),
                UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true,
            };
            using (var p = Process.Start(psi))
            {
                var err = p.StandardError.ReadToEndAsync();
                string output = p.StandardOutput.ReadToEnd();
                if (!p.WaitForExit(300000)) { p.Kill(); throw new Exception("child " + mode + " hangs"); }
                Console.Write(output);
                if (p.ExitCode != 0)
                    throw new Exception(string.Format("child {0} exited with {1}:\n{2}\n{3}", mode, p.ExitCode, output,
                                                      err.Result.Length > 3000 ? err.Result.Substring(err.Result.Length - 3000) : err.Result));
            }
        }

        [Test] public void TruncatedToZeroWhileThreadsIterate() { RunChild("truncate0", 10); }
        [Test] public void TruncatedToHalfWhileThreadsIterate() { RunChild("truncate-half", 12); }
        [Test] public void DisposeRacingIteration() { RunChild("dispose", 20); }

        // A value longer than every buffer of the copy-out calls (200 KiB; the
        // buffers start at 4 KiB and grow for it) through each copying read.
        [Test]
        public void LongValueThroughEveryCopy()
        {
            var big = Fx.Big();
            using (var db = Fx.Open())
            {
                var t = db.GetTable("blobs");
                var key = new byte[] { 1 };
                Assert.Bytes(big, t.Get(key), "TryGet");
                var dest = new byte[10];
                fixed (byte* k = key) Assert.Equal(big.Length, t.TryGet(k, 1, dest), "TryGet(dest) length");
                Assert.Bytes(big, t.GetMany(new List<byte[]> { new byte[0], key, new byte[] { 9 } })[1], "GetMany");
                byte[] rk, rv;
                Assert.True(t.TryGetAt(3, out rk, out rv) && Keys.Equal(rk, key), "TryGetAt key");
                Assert.Bytes(big, rv, "TryGetAt");
                Assert.Bytes(big, t.Range(Bound.Inclusive(key), Bound.Inclusive(key)).Single().Value, "Range");
                using (var c = t.OpenCursor())
                {
                    var vals = new List<byte[]>();
                    while (c.Next()) vals.Add(c.Value);
                    Assert.Equal(5, vals.Count, "cursor rows");
                    Assert.Bytes(big, vals[3], "cursor Value");
                    Assert.True(c.SeekExact(key) && c.ValueLength == big.Length, "SeekExact");
                }
                using (var c = t.OpenCursor())
                {
                    byte** ks = stackalloc byte*[8]; byte** vs = stackalloc byte*[8];
                    UIntPtr* kl = stackalloc UIntPtr[8]; UIntPtr* vl = stackalloc UIntPtr[8];
                    int rows = 0, n;
                    while ((n = c.NextBatch(8, ks, kl, vs, vl)) > 0)
                        for (int i = 0; i < n; i++, rows++)
                            if (rows == 3) Assert.True((int)vl[i] == big.Length && vs[i][big.Length - 1] == big[big.Length - 1], "NextBatch");
                    Assert.Equal(5, rows, "NextBatch rows");
                }
            }
        }

        // ------------------------------------------------------------ the child

        public static int Child(string[] args)
        {
            string mode = args[0], path = args[1];
            int rounds = int.Parse(args[2]), threads = int.Parse(args[3]);
            var orig = System.IO.File.ReadAllBytes(path);
            long cut = mode == "truncate0" ? 0 : (orig.Length / 2) & ~4095L; // whole pages
            var endings = new List<string>();
            long reads = 0;
            for (int r = 0; r < rounds; r++)
            {
                System.IO.File.WriteAllBytes(path, orig);
                var db = Database.Open(path);
                foreach (var kv in db.GetTable("ints").All()) { } // every page read (checked) once
                foreach (var kv in db.GetTable("strs").All()) { }
                var ts = new Thread[threads];
                var outs = new string[threads];
                var counts = new long[threads];
                for (int k = 0; k < threads; k++)
                {
                    int id = k, seed = r * 100 + k;
                    ts[k] = new Thread(() => outs[id] = Reader(db, new Random(seed), mode == "dispose", out counts[id]));
                    ts[k].Start();
                }
                Thread.Sleep(5 + new Random(r).Next(20));
                if (mode == "dispose") db.Dispose();
                else using (var f = new FileStream(path, FileMode.Open, FileAccess.Write)) f.SetLength(cut);
                foreach (var t in ts)
                    if (!t.Join(60000)) { Console.WriteLine("a reader hangs"); return 2; }
                db.Dispose();
                endings.AddRange(outs);
                reads += counts.Sum();
            }
            string want = mode == "dispose" ? "ObjectDisposedException" : "Corrupt";
            Console.WriteLine("C# {0}: {1} rounds x {2} threads, {3} reads, endings: {4}", mode, rounds, threads, reads,
                              string.Join(", ", endings.Distinct()));
            var bad = endings.Where(e => e != want).ToList();
            if (bad.Count > 0) { Console.WriteLine("readers ended otherwise: " + string.Join(" | ", bad.Take(5))); return 1; }
            return 0;
        }

        // Reads, every answer checked, until an exception: its name (for a
        // DryDBException, its status).
        static string Reader(Database db, Random rnd, bool disposing, out long n)
        {
            n = 0;
            // (stackalloc outside try: mcs emits invalid IL otherwise)
            byte** ks = stackalloc byte*[64];
            byte** vs = stackalloc byte*[64];
            UIntPtr* kl = stackalloc UIntPtr[64];
            UIntPtr* vl = stackalloc UIntPtr[64];
            byte* kb = stackalloc byte[8];
            try
            {
                var ints = db.GetTable("ints");
                var strs = db.GetTable("strs");
                var ix = ints.Index("by_mod");
                var dest = new byte[64];
                for (;;)
                {
                    long lo = rnd.Next(Rows);
                    long i = lo;
                    foreach (var kv in ints.Range(lo, lo + 300))
                        Check(Keys.ToInt64(kv.Key) == i && Fx.S(kv.Value) == Value(i++), "Range");
                    Check(i == Math.Min(lo + 300, Rows), "Range end");
                    n++;
                    i = lo;
                    foreach (var kv in ints.Range(Bound.Inclusive(lo - 50), Bound.Inclusive(lo), reverse: true))
                        Check(Keys.ToInt64(kv.Key) == i && Fx.S(kv.Value) == Value(i--), "Range reverse");
                    n++;
                    var keys = Enumerable.Range(0, 300).Select(_ => (long)rnd.Next(Rows + 100)).ToArray();
                    var vals = ints.GetMany(keys);
                    for (int j = 0; j < keys.Length; j++) Check(Fx.S(vals[j]) == (keys[j] < Rows ? Value(keys[j]) : null), "GetMany");
                    n++;
                    byte[] v, k;
                    Check(ints.TryGet(lo, out v) && Fx.S(v) == Value(lo), "TryGet");
                    Check(ints.TryGetAt(lo, out k, out v) && Keys.ToInt64(k) == lo && Fx.S(v) == Value(lo), "TryGetAt");
                    Keys.PutInt64(lo, kb);
                    Check(ints.TryGet(kb, 8, dest) == 14 && Fx.S(dest.Take(14).ToArray()) == Value(lo), "TryGet(dest)");
                    n++;
                    using (var c = ints.OpenCursor(Bound.Inclusive(Keys.Int64(lo)), Bound.Unbounded))
                    {
                        i = lo;
                        for (int j = 0; j < 100 && c.Next(); j++)
                            Check(c.KeyInt64 == i && Fx.S(c.Value) == Value(i++), "Cursor");
                        int got = c.NextBatch(64, ks, kl, vs, vl);
                        for (int j = 0; j < got; j++)
                            Check(Keys.ReadInt64(ks[j]) == i && (int)vl[j] == 14 && Fx.S(Bytes(vs[j], 14)) == Value(i++), "NextBatch");
                    }
                    n++;
                    long m = lo % 7;
                    i = m;
                    foreach (var e in ix.Range(Bound.Inclusive(Keys.Int64(m)), Bound.Inclusive(Keys.Int64(m))).Take(200))
                    {
                        Check(Keys.ToInt64(e.PrimaryKey) == i && Fx.S(e.Value) == Value(i), "Index range");
                        i += 7;
                    }
                    byte[] pk;
                    Check(ix.TryGet(m, out pk, out v) && Keys.ToInt64(pk) == m && Fx.S(v) == Value(m), "Index get");
                    n++;
                    int s = (int)lo;
                    foreach (var kv in strs.Range("k" + lo.ToString("D6"), "k" + (lo + 150).ToString("D6")))
                    {
                        Check(Fx.S(kv.Key) == "k" + s.ToString("D6") && Fx.S(kv.Value) == StrValue(s), "strs Range");
                        s++;
                    }
                    n++;
                }
            }
            catch (DryDBException e) { return e.Code.ToString(); }
            catch (ObjectDisposedException) { return "ObjectDisposedException"; }
            catch (Exception e) { return e.GetType().Name + ": " + e.Message; }
        }

        static byte[] Bytes(byte* p, int len)
        {
            var r = new byte[len];
            for (int i = 0; i < len; i++) r[i] = p[i];
            return r;
        }

        static void Check(bool ok, string what) { if (!ok) throw new Exception("wrong answer: " + what); }
    }
}
