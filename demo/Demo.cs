// The Unicode demo through the C# binding (bindings/csharp), under Mono.
using System;
using System.Text;
using DryDB;

static class Demo
{
    static int Main(string[] args)
    {
        string path = args.Length > 0 ? args[0] : "unicode.drydb";
        using (var db = Database.Open(path))
        {
            var t = db.GetTable("unicode");
            foreach (long cp in new long[] { 0x41, 0x3B1, 0x1F600, 0x10FFFF })
            {
                byte[] v;
                Console.WriteLine("C#: U+{0:X4} -> {1}", cp, t.TryGet(cp, out v) ? Encoding.UTF8.GetString(v) : "(not assigned)");
            }
            Console.WriteLine("C#: {0} code points in [U+0000, U+0100), {1} in all",
                t.Count(Bound.Inclusive(0L), Bound.Exclusive(0x100L)), t.Count(Bound.Unbounded, Bound.Unbounded));
            var byCategory = t.Index("by_category");
            Console.WriteLine("C#: {0} lowercase letters (Ll)", byCategory.CountKey(Keys.String("Ll")));
            int shown = 0;
            foreach (var e in byCategory.GetAll("Sm"))
            {
                if (shown++ == 5) break;
                Console.WriteLine("C#: math symbol {0}", Encoding.UTF8.GetString(e.Value));
            }
        }
        return 0;
    }
}
