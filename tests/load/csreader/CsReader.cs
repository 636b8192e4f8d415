// CsReader: the C# reader of the load test (Mono). THREADS threads (default 8)
// read one file for LOAD_SECONDS seconds through DryDB.dll, checking every
// answer against the formulas of tests/load/README.md, then print one JSON line.
//
//   mcs -langversion:7.2 -r:bindings/csharp/out/DryDB.dll -out:CsReader.exe tests/load/csreader/CsReader.cs
//   mono CsReader.exe FILE      (DryDB.dll, DryDB.dll.config and libdrydb.so next to the .exe)
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using DryDB;


static class CsReader
{
    const int IntRows = 200000;
    const long KMin = -300000;
    const long KMax = KMin + 3L * (IntRows - 1);
    const int NameRows = 100000;
    const int Groups = 500;
    const int PerGroup = NameRows / Groups;

    static byte[] IntVal(long k)
    {
        long a = Math.Abs(k);
        byte[] rep = Encoding.ASCII.GetBytes("v" + k.ToString(CultureInfo.InvariantCulture) + ";");
        long n = rep.Length + a * 31 % 251;
        if (a % 97 == 0) n = rep.Length + 1025 + a % 3000;
        var o = new byte[n];
        for (long i = 0; i < n; i++) o[i] = rep[i % rep.Length];
        return o;
    }
    static string NameKey(long i) { return "user:" + i.ToString("D7", CultureInfo.InvariantCulture); }
    static byte[] NameVal(long i)
    {
        return Encoding.ASCII.GetBytes("name-" + i.ToString(CultureInfo.InvariantCulture) + "/grp" +
            (i % Groups).ToString("D3", CultureInfo.InvariantCulture) + "/" + new string('x', (int)(i % 50)));
    }
    static string GrpKey(long g) { return "grp" + g.ToString("D3", CultureInfo.InvariantCulture); }
    static long FirstIdx(long x) { long s = x - KMin; return s <= 0 ? 0 : (s + 2) / 3; }
    static long LastIdx(long x) { long s = x - KMin; return s < 0 ? -1 : Math.Min(s / 3, IntRows - 1); }
    static bool Present(long k) { return k >= KMin && k <= KMax && (k - KMin) % 3 == 0; }
    static bool Eq(byte[] a, byte[] b) { return a != null && b != null && Keys.Equal(a, b); }

    sealed class Worker
    {
        ulong r;
        readonly Table[] ints; readonly Table names; readonly SecondaryIndex ix;
        public long Ops, Errors;
        public readonly List<string> Msgs = new List<string>();
        public Worker(ulong seed, Table[] ints, Table names, SecondaryIndex ix) { r = seed; this.ints = ints; this.names = names; this.ix = ix; }

        ulong Next() { r ^= r >> 12; r ^= r << 25; r ^= r >> 27; return r * 2685821657736338717UL; }
        long Rn(long m) { return (long)(Next() % (ulong)m); }
        void Fail(string m) { Errors++; if (Msgs.Count < 5) Msgs.Add(m); }

        long RandIntKey(bool present)
        {
            if (present) return KMin + 3 * Rn(IntRows);
            if (Rn(2) == 0) return KMin + 3 * Rn(IntRows) + 1 + Rn(2);
            if (Rn(2) == 0) return KMin - 1 - Rn(1000);
            return KMax + 1 + Rn(1000);
        }

        public void Op()
        {
            Ops++;
            Table t = ints[Rn(2)];
            long r = Rn(100);
            if (r < 35)
            {
                long k = RandIntKey(r < 25);
                byte[] v;
                bool f = t.TryGet(k, out v);
                if (Present(k) ? !(f && Eq(v, IntVal(k))) : f) Fail(t.Name + " get " + k + ": found " + f);
            }
            else if (r < 50)
            {
                var ks = new long[64];
                for (int i = 0; i < ks.Length; i++) ks[i] = RandIntKey(Rn(10) < 7);
                byte[][] vs = t.GetMany(ks);
                for (int i = 0; i < ks.Length; i++)
                    if (Present(ks[i]) ? !Eq(vs[i], IntVal(ks[i])) : vs[i] != null)
                        Fail(t.Name + " GetMany " + ks[i] + ": " + (vs[i] == null ? "null" : vs[i].Length + " bytes"));
            }
            else if (r < 65)
            {
                long lo = KMin - 50 + Rn(KMax - KMin + 100);
                bool excl = Rn(2) == 0;
                long fi = FirstIdx(excl ? lo + 1 : lo);
                long want = Math.Max(0, Math.Min(100, IntRows - fi));
                long got = 0;
                foreach (var kv in t.Range(excl ? Bound.Exclusive(lo) : Bound.Inclusive(lo), Bound.Unbounded))
                {
                    if (got == 100) break;
                    long ek = KMin + 3 * (fi + got);
                    if (Keys.ToInt64(kv.Key) != ek || !Eq(kv.Value, IntVal(ek)))
                    {
                        Fail(t.Name + " scan from " + lo + " excl " + excl + " row " + got + ": want key " + ek);
                        return;
                    }
                    got++;
                }
                if (got != want) Fail(t.Name + " scan from " + lo + " excl " + excl + ": " + got + " rows want " + want);
            }
            else if (r < 75)
            {
                long span = KMax - KMin + 200;
                long lo = KMin - 100 + Rn(span), hi = KMin - 100 + Rn(span);
                if (lo > hi) { long x = lo; lo = hi; hi = x; }
                Bound lb = Bound.Inclusive(lo), hb = Bound.Inclusive(hi);
                long fi = FirstIdx(lo), li = LastIdx(hi);
                switch (Rn(6))
                {
                    case 0: lb = Bound.Unbounded; fi = 0; break;
                    case 1: hb = Bound.Unbounded; li = IntRows - 1; break;
                    case 2: lb = Bound.Exclusive(lo); fi = FirstIdx(lo + 1); break;
                    case 3: hb = Bound.Exclusive(hi); li = LastIdx(hi - 1); break;
                }
                long want = Math.Max(0, li - fi + 1);
                long n = t.Count(lb, hb);
                if (n != want) Fail(t.Name + " count " + lb + ".." + hb + ": " + n + " want " + want);
            }
            else if (r < 83)
            {
                long i = Rn(NameRows + NameRows / 10);
                string k = NameKey(i);
                if (Rn(4) == 0) { k += "x"; i = NameRows; }
                byte[] v;
                bool f = names.TryGet(k, out v);
                if (i < NameRows ? !(f && Eq(v, NameVal(i))) : f) Fail("names get " + k + ": found " + f);
            }
            else if (r < 87)
            {
                var iss = new long[32];
                var ks = new string[32];
                for (int j = 0; j < 32; j++) { iss[j] = Rn(NameRows + NameRows / 5); ks[j] = NameKey(iss[j]); }
                byte[][] vs = names.GetMany(ks);
                for (int j = 0; j < 32; j++)
                    if (iss[j] < NameRows ? !Eq(vs[j], NameVal(iss[j])) : vs[j] != null)
                        Fail("names GetMany " + iss[j] + ": " + (vs[j] == null ? "null" : Encoding.ASCII.GetString(vs[j])));
            }
            else if (r < 92)
            {
                long g = Rn(Groups + 50);
                byte[] pk, v;
                bool f = ix.TryGet(GrpKey(g), out pk, out v);
                if (g < Groups ? !(f && Eq(pk, Keys.String(NameKey(g))) && Eq(v, NameVal(g))) : f)
                    Fail("index get " + GrpKey(g) + ": found " + f);
            }
            else if (r < 96)
            {
                long g1 = Rn(Groups + 10), g2 = g1 + Rn(20);
                long want = g1 >= Groups ? 0 : (Math.Min(g2, Groups - 1) - g1 + 1) * PerGroup;
                long n = ix.Count(Bound.Inclusive(GrpKey(g1)), Bound.Inclusive(GrpKey(g2)));
                if (n != want) Fail("index count " + GrpKey(g1) + ".." + GrpKey(g2) + ": " + n + " want " + want);
            }
            else
            {
                long g = Rn(Groups);
                byte[] gk = Keys.String(GrpKey(g));
                long got = 0;
                foreach (var e in ix.Range(Bound.Inclusive(gk), Bound.Inclusive(gk)))
                {
                    if (got == 100) break;
                    long i = g + Groups * got;
                    if (!Eq(e.IndexKey, gk) || !Eq(e.PrimaryKey, Keys.String(NameKey(i))) || !Eq(e.Value, NameVal(i)))
                    {
                        Fail("index scan " + GrpKey(g) + " entry " + got + ": pk " + Encoding.ASCII.GetString(e.PrimaryKey));
                        return;
                    }
                    got++;
                }
                if (got != 100) Fail("index scan " + GrpKey(g) + ": " + got + " entries");
            }
        }
    }

    static string J(string s)
    {
        var b = new StringBuilder("\"");
        foreach (char c in s)
        {
            if (c == '"' || c == '\\') b.Append('\\').Append(c);
            else if (c < 0x20) b.AppendFormat("\\u{0:x4}", (int)c);
            else b.Append(c);
        }
        return b.Append('"').ToString();
    }

    static int Main(string[] args)
    {
        if (args.Length != 1) { Console.Error.WriteLine("usage: CsReader.exe FILE"); return 2; }
        double secs = 60;
        string s = Environment.GetEnvironmentVariable("LOAD_SECONDS");
        if (!string.IsNullOrEmpty(s)) secs = double.Parse(s, CultureInfo.InvariantCulture);
        int threads = 8;
        s = Environment.GetEnvironmentVariable("THREADS");
        if (!string.IsNullOrEmpty(s)) threads = int.Parse(s, CultureInfo.InvariantCulture);
        int pid = Process.GetCurrentProcess().Id;
        var db = Database.Open(args[0]);
        var ints = new[] { db.GetTable("ints"), db.GetTable("ints_zstd") };
        var names = db.GetTable("names");
        var ix = names.Index("by_grp");
        var stop = 0;
        var ws = new Worker[threads];
        var ths = new Thread[threads];
        var sw = Stopwatch.StartNew();
        for (int t = 0; t < threads; t++)
        {
            var w = ws[t] = new Worker(((ulong)pid << 20) ^ (ulong)(t + 1) * 0x9E3779B97F4A7C15UL, ints, names, ix);
            ths[t] = new Thread(() =>
            {
                try { while (Volatile.Read(ref stop) == 0) w.Op(); }
                catch (Exception e) { w.Errors++; w.Msgs.Add("exception: " + e.GetType().Name + ": " + e.Message); }
            });
            ths[t].Start();
        }
        Thread.Sleep(TimeSpan.FromSeconds(secs));
        Volatile.Write(ref stop, 1);
        foreach (var th in ths) th.Join();
        double el = sw.Elapsed.TotalSeconds;
        db.Dispose();
        long ops = ws.Sum(w => w.Ops), errs = ws.Sum(w => w.Errors);
        var msgs = ws.SelectMany(w => w.Msgs).Take(5).ToList();
        var inv = CultureInfo.InvariantCulture;
        var o = new StringBuilder();
        o.AppendFormat(inv, "{{\"lang\":\"csharp\",\"pid\":{0},\"threads\":{1},\"seconds\":{2:F1},\"ops\":{3},\"errors\":{4},\"ops_per_s\":{5:F1}",
            pid, threads, el, ops, errs, ops / el);
        if (msgs.Count > 0) o.Append(",\"first_errors\":[").Append(string.Join(",", msgs.Select(J))).Append(']');
        o.Append('}');
        Console.WriteLine(o.ToString());
        return 0;
    }
}
