// Runner.cs - a self-contained test runner (no NUnit needed): every public
// method marked [Test] of a class marked [TestClass] runs; failures are
// printed; the last line is "N passed, N failed"; the exit code is non-zero
// on failure. `mono DryDB.Tests.exe [name-filter...]`, `--bench` for figures,
// `--child` for the processes TeardownTests starts.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Reflection;

namespace DryDB.Tests
{
    [AttributeUsage(AttributeTargets.Method)] public sealed class TestAttribute : Attribute { }
    [AttributeUsage(AttributeTargets.Class)] public sealed class TestClassAttribute : Attribute { }

    /// <summary>Thrown by a test to report it was skipped (with the reason).</summary>
    public sealed class SkipException : Exception { public SkipException(string why) : base(why) { } }

    public static class Assert
    {
        public static void True(bool c, string msg = "expected true") { if (!c) throw new Exception(msg); }
        public static void False(bool c, string msg = "expected false") { if (c) throw new Exception(msg); }
        public static void Equal<T>(T want, T got, string what = "")
        {
            if (!EqualityComparer<T>.Default.Equals(want, got))
                throw new Exception(string.Format("{0}: want <{1}>, got <{2}>", what, want, got));
        }
        public static void Bytes(byte[] want, byte[] got, string what = "")
        {
            if (!Keys.Equal(want, got))
                throw new Exception(string.Format("{0}: want {1}, got {2}", what, Keys.ToHex(want), Keys.ToHex(got)));
        }
        public static void Str(string want, byte[] got, string what = "")
        {
            if (got == null || System.Text.Encoding.UTF8.GetString(got) != want)
                throw new Exception(string.Format("{0}: want \"{1}\", got {2}", what, want, got == null ? "null" : "\"" + System.Text.Encoding.UTF8.GetString(got) + "\""));
        }
        public static Exception Throws<E>(Action a, string what = "") where E : Exception
        {
            try { a(); }
            catch (E e) { return e; }
            catch (Exception e) { throw new Exception(string.Format("{0}: want {1}, got {2}: {3}", what, typeof(E).Name, e.GetType().Name, e.Message)); }
            throw new Exception(string.Format("{0}: want {1}, nothing thrown", what, typeof(E).Name));
        }
        public static DryDBException Status(DryDB.Status code, Action a, string what = "")
        {
            var e = (DryDBException)Throws<DryDBException>(a, what);
            if (e.Code != code) throw new Exception(string.Format("{0}: want status {1}, got {2} ({3})", what, code, e.Code, e.Message));
            return e;
        }
    }

    public static class Runner
    {
        public static int Main(string[] args)
        {
            if (args.Length > 0 && args[0] == "--bench") { Bench.Run(args.Skip(1).ToArray()); return 0; }
            if (args.Length > 0 && args[0] == "--child") return TeardownTests.Child(args.Skip(1).ToArray());
            if (args.Length > 0 && args[0] == "--no-library") return ApiConventionTests.NoLibrary();
            var filters = args;
            int passed = 0, failed = 0, skipped = 0;
            var types = typeof(Runner).Assembly.GetTypes().Where(t => t.GetCustomAttributes(typeof(TestClassAttribute), false).Length > 0).OrderBy(t => t.Name);
            var total = Stopwatch.StartNew();
            // DRYDB_CS_TRACE=1 names each test as it starts (to stderr, unbuffered): a hang's test
            bool trace = Environment.GetEnvironmentVariable("DRYDB_CS_TRACE") == "1";
            foreach (var t in types)
            {
                foreach (var m in t.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static).Where(m => m.GetCustomAttributes(typeof(TestAttribute), false).Length > 0).OrderBy(m => m.MetadataToken))
                {
                    string name = t.Name + "." + m.Name;
                    if (filters.Length > 0 && !filters.Any(f => name.IndexOf(f, StringComparison.OrdinalIgnoreCase) >= 0)) continue;
                    if (trace) Console.Error.WriteLine("run  {0}", name);
                    var sw = Stopwatch.StartNew();
                    try
                    {
                        object inst = m.IsStatic ? null : Activator.CreateInstance(t);
                        try { m.Invoke(inst, null); }
                        finally { var d = inst as IDisposable; if (d != null) d.Dispose(); }
                        passed++;
                        if (sw.ElapsedMilliseconds > 1000) Console.WriteLine("ok   {0} ({1} ms)", name, sw.ElapsedMilliseconds);
                    }
                    catch (Exception e)
                    {
                        var inner = e is TargetInvocationException && e.InnerException != null ? e.InnerException : e;
                        if (inner is SkipException) { skipped++; Console.WriteLine("SKIP {0}: {1}", name, inner.Message); continue; }
                        failed++;
                        Console.WriteLine("FAIL {0}: {1}", name, inner);
                    }
                }
            }
            if (skipped > 0) Console.WriteLine("{0} skipped (reasons above)", skipped);
            Console.WriteLine("total {0:F1} s", total.Elapsed.TotalSeconds);
            Console.WriteLine("{0} passed, {1} failed", passed, failed);
            return failed == 0 ? 0 : 1;
        }
    }
}
