// Reads a database (a sharded one: test_spark.py) through the C# binding
// and checks it against a dump of the rows it was built from (the format:
// ../c/read_dump.c): every row by TryGet and by All() in both directions,
// Count, and the index counts. Prints "ok <rows>"; exit status 1 on a
// difference.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using DryDB;

static class ReadDump
{
    static byte[] Unhex(string s)
    {
        var b = new byte[s.Length / 2];
        for (int i = 0; i < b.Length; i++) b[i] = Convert.ToByte(s.Substring(2 * i, 2), 16);
        return b;
    }

    static void Check(bool ok, string what)
    {
        if (!ok) { Console.Error.WriteLine(what); Environment.Exit(1); }
    }

    static int Main(string[] args)
    {
        Check(args.Length == 3, "usage: ReadDump.exe DB TABLE DUMP");
        var keys = new List<byte[]>();
        var vals = new List<byte[]>();
        using (var db = Database.Open(args[0]))
        {
            var t = db.GetTable(args[1]);
            foreach (var line in File.ReadLines(args[2]))
            {
                var f = line.Split(' ');
                if (f[0] == "row")
                {
                    byte[] k = Unhex(f[1]), want = Unhex(f[2]), v;
                    Check(t.TryGet(k, out v) && v.SequenceEqual(want), "get row " + keys.Count + " (" + f[1] + ")");
                    keys.Add(k);
                    vals.Add(want);
                }
                else
                {
                    Check(f[0] == "index" && f.Length == 4, "bad dump line " + line);
                    var k = Unhex(f[2]);
                    long got = t.Index(f[1]).Count(Bound.Inclusive(k), Bound.Inclusive(k));
                    Check(got == long.Parse(f[3]), "index " + f[1] + " count of " + f[2] + ": " + got + ", want " + f[3]);
                }
            }
            Check(t.Count() == keys.Count, "count " + t.Count() + ", want " + keys.Count);
            foreach (var rev in new[] { false, true })
            {
                int i = 0;
                foreach (var kv in t.All(rev))
                {
                    int at = rev ? keys.Count - 1 - i : i;
                    Check(i < keys.Count && kv.Key.SequenceEqual(keys[at]) && kv.Value.SequenceEqual(vals[at]),
                          "All(" + rev + ") row " + at);
                    i++;
                }
                Check(i == keys.Count, "All(" + rev + ") gave " + i + " rows, want " + keys.Count);
            }
        }
        Console.WriteLine("ok " + keys.Count);
        return 0;
    }
}
