// RobustnessTests.cs - nothing a caller does crashes the process: random
// misuse of every call, and a file truncated under an open database.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class RobustnessTests
    {
        static bool Allowed(Exception e)
        {
            return e is DryDBException || e is ArgumentException || e is InvalidOperationException || e is ObjectDisposedException;
        }

        static byte[] RandomKey(Random r)
        {
            var b = new byte[r.Next(0, 20)];
            r.NextBytes(b);
            return b;
        }

        static Bound RandomBound(Random r)
        {
            switch (r.Next(3)) { case 0: return Bound.Unbounded; case 1: return Bound.Inclusive(RandomKey(r)); default: return Bound.Exclusive(RandomKey(r)); }
        }

        [Test]
        public void RandomMisuse()
        {
            var rnd = new Random(1234);
            var db = Fx.Open();
            var names = db.Tables.ToList();
            var cursors = new List<Cursor>();
            int errors = 0, ops = 0;
            for (int i = 0; i < 20000; i++)
            {
                try
                {
                    ops++;
                    var t = db.IsDisposed ? null : db.GetTable(names[rnd.Next(names.Count)]);
                    if (t == null) { db = Fx.Open(); continue; }
                    byte[] v, pk;
                    switch (rnd.Next(16))
                    {
                        case 0: t.TryGet(RandomKey(rnd), out v); break;
                        case 1: t.GetMany(Enumerable.Range(0, rnd.Next(0, 10)).Select(_ => RandomKey(rnd)).ToList()); break;
                        case 2: t.Count(RandomBound(rnd), RandomBound(rnd)); break;
                        case 3: t.Rank(RandomKey(rnd)); break;
                        case 4: t.TryGetAt(rnd.Next(-2, 12000), out v, out pk); break;
                        case 5: t.Range(RandomBound(rnd), RandomBound(rnd), rnd.Next(2) == 0).Take(rnd.Next(0, 100)).Count(); break;
                        case 6: t.Prefix(RandomKey(rnd), rnd.Next(2) == 0).Take(50).Count(); break;
                        case 7: cursors.Add(rnd.Next(2) == 0 ? t.OpenCursor(RandomBound(rnd), RandomBound(rnd)) : t.OpenPrefixCursor(RandomKey(rnd))); break;
                        case 8:
                        case 9:
                            if (cursors.Count == 0) break;
                            var c = cursors[rnd.Next(cursors.Count)];
                            switch (rnd.Next(10))
                            {
                                case 0: c.Next(); break; case 1: c.Prev(); break; case 2: c.First(); break; case 3: c.Last(); break;
                                case 4: c.Seek(RandomKey(rnd)); break; case 5: c.SeekExact(RandomKey(rnd)); break; case 6: c.SeekRow(rnd.Next(0, 12000)); break;
                                case 7: var k = c.Key; var vv = c.Value; break;
                                case 8: var pkk = c.PrimaryKey; break;
                                default: c.Dispose(); break;
                            }
                            break;
                        case 10:
                            var ixName = new[] { "by_category", "thousands", "by_mod10", "nope" }[rnd.Next(4)];
                            var ix = t.Index(ixName);
                            switch (rnd.Next(5))
                            {
                                case 0: ix.TryGet(RandomKey(rnd), out pk, out v); break;
                                case 1: ix.GetAll(RandomKey(rnd)).Take(20).Count(); break;
                                case 2: ix.Count(RandomBound(rnd), RandomBound(rnd)); break;
                                case 3: ix.Range(RandomBound(rnd), RandomBound(rnd), rnd.Next(2) == 0).Take(20).Count(); break;
                                default: using (var ic = ix.OpenPrefixCursor(RandomKey(rnd))) { ic.Next(); var p2 = ic.PrimaryKey; ic.Prev(); } break;
                            }
                            break;
                        case 11: if (rnd.Next(50) == 0) db.Dispose(); break;
                        case 12: t.TryGet(rnd.Next(), out v); break;
                        case 13: t.Get(rnd.NextDouble() * 1e6 - 5e5); break;
                        case 14: t.Get("s" + rnd.Next()); break;
                        default: t.Get(new Guid(RandomKey(rnd).Concat(new byte[16]).Take(16).ToArray())); break;
                    }
                }
                catch (Exception e)
                {
                    if (!Allowed(e)) throw new Exception("unexpected " + e.GetType().Name + " at op " + i, e);
                    errors++;
                }
            }
            foreach (var c in cursors) c.Dispose();
            db.Dispose();
            Assert.True(errors > 100 && errors < ops, "a mix of failures and successes: " + errors + "/" + ops);
        }

        [Test]
        public void FileTruncatedUnderneath()
        {
            var copy = System.IO.Path.Combine(Fx.Dir, "truncated.drydb");
            File.Copy(Fx.Path, copy, true);
            using (var db = Database.Open(copy))
            {
                var items = db.GetTable("items");
                var words = db.GetTable("words");
                long len = new FileInfo(copy).Length;
                using (var f = new FileStream(copy, FileMode.Open, FileAccess.Write)) f.SetLength(len / 3);
                int failures = 0, ok = 0;
                foreach (var t in new[] { items, words, db.GetTable("blobs") })
                {
                    try { foreach (var kv in t.All()) ok++; }
                    catch (DryDBException e) { failures++; Assert.True(e.Code == Status.Corrupt || e.Code == Status.IO, "code " + e.Code); }
                    for (long i = 0; i < 500; i++)
                    {
                        try { byte[] k, v; t.TryGetAt(i * 7, out k, out v); ok++; }
                        catch (DryDBException e) { failures++; Assert.True(e.Code == Status.Corrupt || e.Code == Status.IO, "code " + e.Code); }
                    }
                }
                Assert.True(failures > 0, "reads past the new end fail cleanly (" + ok + " ok)");
            }
        }
    }
}
