// CursorIndexTests.cs - cursors (zero-copy, read-ahead, moves) and secondary indexes.
using System;
using System.Collections.Generic;
using System.Linq;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class CursorTests : IDisposable
    {
        readonly Database db = Fx.Open();
        readonly Table items;
        public CursorTests() { items = db.GetTable("items"); }
        public void Dispose() { db.Dispose(); }

        static unsafe long PtrKey(Cursor c) { Assert.Equal(8, c.KeyLength, "klen"); return Keys.ReadInt64(c.KeyPointer); }
        static unsafe string PtrVal(Cursor c) { return System.Text.Encoding.UTF8.GetString(c.ValuePointer, c.ValueLength); }

        [Test]
        public void ForwardBackward()
        {
            using (var c = items.OpenCursor())
            {
                Assert.False(c.IsValid, "fresh cursor is unpositioned");
                Assert.Throws<InvalidOperationException>(() => { var k = c.Key; }, "Key before a move");
                int n = 0;
                while (c.Next())
                {
                    long k = PtrKey(c);
                    Assert.Equal(ItemKey(n), k, "forward key");
                    Assert.Equal(ItemValue(k), PtrVal(c), "forward value");
                    n++;
                }
                Assert.Equal(N, n, "rows");
                Assert.False(c.IsValid, "at end");
                Assert.False(c.Next(), "stays at end");
                Assert.False(c.Prev(), "prev at end stays at end (like the C API)");
                Assert.True(c.Last() && c.KeyInt64 == ItemKey(N - 1), "Last");
                n = 0;
                do { Assert.Equal(ItemKey(N - 1 - n), c.KeyInt64, "backward"); n++; } while (c.Prev());
                Assert.Equal(N, n, "rows backward");
            }
            using (var c = items.OpenCursor())
            {
                Assert.True(c.Prev() && c.KeyInt64 == ItemKey(N - 1), "Prev on fresh = last");
            }
        }

        [Test]
        public void MixedMovesAcrossReadAhead()
        {
            // Zig-zag: next k times, prev j times, compare with the expected index.
            using (var c = items.OpenCursor(Bound.Inclusive(100L), Bound.Exclusive(3000L)))
            {
                var rnd = new Random(7);
                int lo = 50, hi = 1499; // row indexes within the bounds
                Assert.True(c.First(), "First");
                int pos = lo;
                for (int step = 0; step < 3000; step++)
                {
                    bool fwd = rnd.Next(3) != 0;
                    bool ok = fwd ? c.Next() : c.Prev();
                    int want = fwd ? pos + 1 : pos - 1;
                    if (want < lo || want > hi)
                    {
                        Assert.False(ok, "runs off at " + want);
                        Assert.True(fwd ? c.Last() : c.First(), "reposition");
                        pos = fwd ? hi : lo;
                        continue;
                    }
                    Assert.True(ok, "move to " + want);
                    pos = want;
                    Assert.Equal(ItemKey(pos), PtrKey(c), "key at step " + step);
                    Assert.Str(ItemValue(ItemKey(pos)), c.Value, "value at step " + step);
                }
            }
        }

        [Test]
        public void Seeks()
        {
            using (var c = items.OpenCursor(Bound.Inclusive(100L), Bound.Inclusive(200L)))
            {
                Assert.True(c.Seek(151L) && c.KeyInt64 == 152, "seek to next key");
                Assert.True(c.Next() && c.KeyInt64 == 154, "next after seek");
                Assert.True(c.Prev() && c.KeyInt64 == 152, "prev after seek");
                Assert.True(c.Seek(0L) && c.KeyInt64 == 100, "seek below lo = first");
                Assert.False(c.Seek(201L), "seek past hi");
                Assert.False(c.IsValid, "at end after failed seek");
                Assert.True(c.SeekExact(150L) && c.KeyInt64 == 150, "SeekExact");
                Assert.False(c.SeekExact(151L), "SeekExact absent");
                Assert.False(c.SeekExact(300L), "SeekExact outside bounds");
                Assert.True(c.SeekRow(60) && c.KeyInt64 == 120, "SeekRow (whole-table numbering)");
                Assert.False(c.SeekRow(10), "SeekRow outside bounds");
                Assert.False(c.SeekRow(N + 5), "SeekRow past end");
                Assert.Throws<ArgumentOutOfRangeException>(() => c.SeekRow(-1));
                Assert.True(c.First() && c.KeyInt64 == 100 && c.Last() && c.KeyInt64 == 200, "First/Last");
                Assert.Throws<ArgumentNullException>(() => c.Seek((byte[])null));
                try { c.Seek(new byte[3]); } catch (DryDBException e) { Assert.Equal(Status.BadKey, e.Code, "bad seek key"); }
            }
            using (var c = items.OpenCursor(Bound.Exclusive(100L), Bound.Exclusive(106L)))
            {
                var ks = new List<long>();
                while (c.Next()) ks.Add(c.KeyInt64);
                Assert.True(ks.SequenceEqual(new long[] { 102, 104 }), "exclusive bounds");
            }
        }

        [Test]
        public void PrefixAndCompressed()
        {
            var words = db.GetTable("words");
            using (var c = words.OpenPrefixCursor(Fx.B("w0012")))
            {
                var got = new List<string>();
                while (c.Next()) { got.Add(Fx.S(c.Key)); Assert.Str(got.Last() + got.Last() + got.Last(), c.Value, "zstd value"); }
                Assert.Equal(10, got.Count, "prefix rows");
                Assert.Equal("w00120", got[0], "first");
            }
            // walk a compressed table with the cursor, comparing with point gets
            using (var c = words.OpenCursor())
            {
                int n = 0;
                while (c.Next()) { byte[] v; Assert.True(words.TryGet(c.Key, out v), "get"); Assert.Bytes(v, c.Value, "cursor value = get"); n++; }
                Assert.Equal(3002, n, "all words");
            }
            Assert.Throws<ArgumentNullException>(() => words.OpenPrefixCursor((byte[])null));
            Assert.Throws<InvalidOperationException>(() => { using (var c = words.OpenCursor()) { c.Next(); var pk = c.PrimaryKey; } }, "PrimaryKey on a table cursor");
        }

        [Test]
        public void Disposal()
        {
            var c = items.OpenCursor();
            Assert.True(c.Next(), "next");
            c.Dispose();
            c.Dispose();
            Assert.True(c.IsDisposed, "IsDisposed");
            Assert.Throws<ObjectDisposedException>(() => c.Next());
            Assert.Throws<ObjectDisposedException>(() => { var k = c.Key; });
            Assert.Throws<ObjectDisposedException>(() => c.First());
            // a cursor left open keeps the mapping alive; after the database is
            // disposed it throws ObjectDisposedException, never reads unmapped memory
            var d = Fx.Open();
            var c2 = d.GetTable("items").OpenCursor();
            Assert.True(c2.Next(), "next");
            d.Dispose();
            Assert.Throws<ObjectDisposedException>(() => c2.Next(), "cursor after db dispose");
            Assert.Throws<ObjectDisposedException>(() => { var k = c2.Key; }, "Key after db dispose");
            c2.Dispose();
            Assert.Throws<ObjectDisposedException>(() => d.GetTable("items").OpenCursor(), "open cursor after dispose");
        }

        [Test]
        public void SharedCursorMisuseDoesNotCrash()
        {
            using (var c = items.OpenCursor())
            {
                int misuse = 0;
                var ts = Enumerable.Range(0, 4).Select(_ => new System.Threading.Thread(() =>
                {
                    for (int i = 0; i < 20000; i++)
                    {
                        try { if (!c.Next()) c.First(); var k = c.Key; Assert.Equal(8, k.Length, "key"); }
                        catch (InvalidOperationException) { System.Threading.Interlocked.Increment(ref misuse); }
                    }
                })).ToList();
                ts.ForEach(t => t.Start());
                ts.ForEach(t => t.Join());
            }
        }
    }

    [TestClass]
    public sealed class IndexTests : IDisposable
    {
        readonly Database db = Fx.Open();
        readonly Table items;
        public IndexTests() { items = db.GetTable("items"); }
        public void Dispose() { db.Dispose(); }

        [Test]
        public void NonUniqueComputed()
        {
            var ix = items.Index("by_category");
            Assert.True(ReferenceEquals(ix, items.Index("by_category")), "same object");
            Assert.Equal(KeyKind.String, ix.KeyKind, "kind");
            Assert.False(ix.Unique, "not unique");
            Assert.Equal((long)N, ix.Info.Entries, "entries");
            Assert.Equal("by_category", ix.Name, "name");
            Assert.True(ReferenceEquals(items, ix.Table), "table");
            byte[] pk, v;
            Assert.True(ix.TryGet("c3", out pk, out v), "get");
            Assert.Equal(10L, Keys.ToInt64(pk), "first pk of c3 (primary key order)");
            Assert.Str("item-10", v, "value");
            Assert.Str("item-10", ix.Get("c3"), "Get");
            Assert.Equal(null, ix.Get("c9"), "absent");
            var all = ix.GetAll("c3").ToList();
            var want = Enumerable.Range(0, N).Select(ItemKey).Where(k => Category(k) == "c3").ToList();
            Assert.Equal(want.Count, all.Count, "GetAll count (duplicates across pages)");
            for (int i = 0; i < want.Count; i++)
            {
                Assert.Equal(want[i], Keys.ToInt64(all[i].PrimaryKey), "pk order");
                Assert.Str("c3", all[i].IndexKey, "index key");
                Assert.Str(ItemValue(want[i]), all[i].Value, "value");
            }
            Assert.Equal((long)want.Count, ix.CountKey(Keys.String("c3")), "CountKey");
            Assert.Equal((long)want.Count, ix.Count("c3", "c4"), "Count [c3, c4)");
            Assert.Equal(0L, ix.Count("c3", "c3"), "Count [c3, c3) is empty");
            int c2c4 = Enumerable.Range(0, N).Select(ItemKey).Count(k => Category(k) == "c2" || Category(k) == "c4");
            Assert.Equal((long)c2c4, ix.Count(Bound.Exclusive(Keys.String("c1")), Bound.Exclusive(Keys.String("c5"))) - want.Count, "exclusive bounds");
            Assert.Equal((long)want.Count, (long)ix.Range(Bound.Exclusive(Keys.String("c2")), Bound.Exclusive(Keys.String("c4"))).Count(), "exclusive range");
            Assert.Equal((long)N, ix.Count(), "count all");
            Assert.Equal(N, ix.Prefix("c").Count(), "prefix");
            var rev = ix.Range("c3", "c4", reverse: true).Select(e => Keys.ToInt64(e.PrimaryKey)).ToList();
            Assert.True(rev.SequenceEqual(Enumerable.Reverse(want)), "reverse");
            Assert.Throws<ArgumentException>(() => ix.Get(3L), "long on string index");
            Assert.Equal(want.Count, ix.GetAllAsync(Keys.String("c3")).Result.Count, "GetAllAsync");
            Assert.Str("item-10", ix.GetAsync(Keys.String("c3")).Result, "GetAsync");
            Assert.Equal((long)want.Count, ix.CountAsync(Bound.Inclusive(Keys.String("c3")), Bound.Inclusive(Keys.String("c3"))).Result, "CountAsync");
            Assert.Equal(want.Count, ix.RangeAsync(Bound.Inclusive(Keys.String("c3")), Bound.Inclusive(Keys.String("c3"))).Result.Count, "RangeAsync");
        }

        [Test]
        public void UniqueSparseAndExplicit()
        {
            var th = items.Index("thousands");
            Assert.True(th.Unique, "unique");
            Assert.Equal(20L, th.Count(), "entries only where the delegate returned a key");
            byte[] pk, v;
            Assert.True(th.TryGet(3L, out pk, out v) && Keys.ToInt64(pk) == 3000, "unique get");
            Assert.False(th.TryGet(25L, out pk, out v), "absent");
            Assert.True(th.Range(2L, 5L).Select(e => Keys.ToInt64(e.PrimaryKey)).SequenceEqual(new long[] { 2000, 3000, 4000 }), "range [2, 5)");
            Assert.Equal(3L, th.Count(2L, 5L), "count [2, 5)");
            var m = items.Index("by_mod10");
            Assert.Equal((long)N, m.Count(), "explicit entries");
            Assert.Equal((long)N / 10, m.CountKey(Keys.Int64(7)), "per key");
            Assert.True(m.GetAll(7L).Select(e => Keys.ToInt64(e.PrimaryKey)).All(k => (k / 2) % 10 == 7), "GetAll long");
            Assert.Status(Status.NoIndex, () => items.Index("nope"));
            Assert.Throws<ArgumentNullException>(() => items.Index(null));
            Assert.Status(Status.BadKey, () => m.Get(new byte[2]), "bad index key");
        }

        [Test]
        public void IndexCursor()
        {
            var ix = items.Index("by_category");
            using (var c = ix.OpenCursor(Bound.Inclusive(Keys.String("c5")), Bound.Inclusive(Keys.String("c5"))))
            {
                var pks = new List<long>();
                while (c.Next())
                {
                    Assert.Str("c5", c.Key, "index key");
                    long pk = Keys.ToInt64(c.PrimaryKey);
                    Assert.Str(ItemValue(pk), c.Value, "value");
                    pks.Add(pk);
                }
                Assert.Equal((int)ix.CountKey(Keys.String("c5")), pks.Count, "rows");
                Assert.True(c.Last() && Keys.ToInt64(c.PrimaryKey) == pks.Last(), "Last");
                Assert.True(c.Prev() && Keys.ToInt64(c.PrimaryKey) == pks[pks.Count - 2], "Prev");
                Assert.True(c.SeekExact(Keys.String("c5")) && Keys.ToInt64(c.PrimaryKey) == pks[0], "SeekExact = first entry of the key");
            }
            using (var c = ix.OpenPrefixCursor(Fx.B("c")))
            {
                int n = 0; while (c.Next()) n++;
                Assert.Equal(N, n, "prefix cursor");
            }
            using (var c = ix.OpenCursor()) { Assert.True(c.Next(), "whole index"); Assert.Throws<InvalidOperationException>(() => { c.Last(); c.Next(); var p = c.PrimaryKey; }); }
        }
    }
}
