// RangeBatchTests.cs - Table.ReadRange (zero-copy range batches over
// drydb_range, no cursor) and the Range/Prefix enumerations built on it:
// every bound kind, both directions, long ranges read in many batches, plain
// and compressed tables, overflow values, arguments, use after Dispose. The
// reference for every answer is a cursor walk (drydb_cursor_*), a separate
// code path in the library.
using System;
using System.Collections.Generic;
using System.Linq;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed unsafe class RangeBatchTests : IDisposable
    {
        readonly Database db = Fx.Open();
        readonly Table items;
        public RangeBatchTests() { items = db.GetTable("items"); }
        public void Dispose() { db.Dispose(); }

        static readonly BoundKind[] Kinds = { BoundKind.Unbounded, BoundKind.Inclusive, BoundKind.Exclusive };

        static Bound Make(BoundKind k, byte[] key)
        {
            return k == BoundKind.Unbounded ? Bound.Unbounded : k == BoundKind.Inclusive ? Bound.Inclusive(key) : Bound.Exclusive(key);
        }

        static string Hex(byte[] b) { return BitConverter.ToString(b); }

        // The rows of a range by a cursor walk: "key-hex=value-hex".
        static List<string> Walk(Table t, Bound lo, Bound hi, bool reverse)
        {
            var r = new List<string>();
            using (var c = t.OpenCursor(lo, hi))
                while (reverse ? c.Prev() : c.Next()) r.Add(Hex(c.Key) + "=" + Hex(c.Value));
            return r;
        }

        static byte[] Copy(byte* p, UIntPtr n)
        {
            var b = new byte[(int)(ulong)n];
            for (int i = 0; i < b.Length; i++) b[i] = p[i];
            return b;
        }

        // The rows of a range by ReadRange(Bound...) batches of `max`, each next
        // batch after a copy of the last key read (exclusive).
        static List<string> Batches(Table t, Bound lo, Bound hi, bool reverse, int max, bool values, out int calls)
        {
            var r = new List<string>();
            var kp = new IntPtr[max]; var kl = new UIntPtr[max]; var vp = new IntPtr[max]; var vl = new UIntPtr[max];
            calls = 0;
            for (;;)
            {
                int n;
                fixed (IntPtr* k = kp) fixed (UIntPtr* l = kl) fixed (IntPtr* v = vp) fixed (UIntPtr* w = vl)
                {
                    n = t.ReadRange(lo, hi, reverse, max, (byte**)k, l, values ? (byte**)v : null, values ? w : null);
                    calls++;
                    Assert.True(n >= 0 && n <= max, "n within [0, max]");
                    for (int i = 0; i < n; i++)
                        r.Add(Hex(Copy(((byte**)k)[i], l[i])) + (values ? "=" + Hex(Copy(((byte**)v)[i], w[i])) : ""));
                    if (n < max) return r;
                    var last = Copy(((byte**)k)[n - 1], l[n - 1]); // copied before the next call (compressed: thread buffer)
                    if (reverse) hi = Bound.Exclusive(last); else lo = Bound.Exclusive(last);
                }
            }
        }

        static List<string> KeysOnly(List<string> rows) { return rows.Select(s => s.Split('=')[0]).ToList(); }

        [Test]
        public void EveryBoundKindBothDirectionsInt64()
        {
            // present (even) and absent (odd) bound keys, below/above the table, lo > hi
            var los = new long[] { -5, 0, 1, 100, 19998, 30000 };
            var his = new long[] { -1, 0, 99, 100, 1001, 40000 };
            foreach (var lk in Kinds) foreach (var hk in Kinds)
            foreach (long l in los) foreach (long h in his)
            {
                if (lk == BoundKind.Unbounded && l != los[0]) continue;
                if (hk == BoundKind.Unbounded && h != his[0]) continue;
                var lo = Make(lk, Keys.Int64(l)); var hi = Make(hk, Keys.Int64(h));
                foreach (bool rev in new[] { false, true })
                {
                    var want = Walk(items, lo, hi, rev);
                    string what = string.Format("{0} {1} .. {2} {3} rev={4}", lk, l, hk, h, rev);
                    int calls;
                    Assert.Equal(string.Join(",", want), string.Join(",", Batches(items, lo, hi, rev, 64, true, out calls)), what);
                    if (want.Count > 200) Assert.True(calls > 3, "several batches: " + what);
                    // the enumerations, built on the same call
                    var en = items.Range(lo, hi, rev).Select(kv => Hex(kv.Key) + "=" + Hex(kv.Value)).ToList();
                    Assert.Equal(string.Join(",", want), string.Join(",", en), "Range " + what);
                }
            }
        }

        [Test]
        public void LongRangesInSmallBatches()
        {
            foreach (bool rev in new[] { false, true })
            {
                var want = Walk(items, Bound.Unbounded, Bound.Unbounded, rev);
                Assert.Equal(N, want.Count, "rows");
                foreach (int max in new[] { 1, 7, 64, 255, 1000, N, N + 1 })
                {
                    int calls;
                    var got = Batches(items, Bound.Unbounded, Bound.Unbounded, rev, max, true, out calls);
                    Assert.Equal(string.Join(",", want), string.Join(",", got), "max " + max + " rev " + rev);
                    Assert.Equal(N / max + 1, calls, "calls for max " + max);
                    Assert.Equal(string.Join(",", KeysOnly(want)), string.Join(",", Batches(items, Bound.Unbounded, Bound.Unbounded, rev, max, false, out calls)), "keys only, max " + max);
                }
                Assert.Equal(string.Join(",", want), string.Join(",", items.All(rev).Select(kv => Hex(kv.Key) + "=" + Hex(kv.Value))), "All rev " + rev);
            }
        }

        [Test]
        public void Int64AndUInt64Overloads()
        {
            byte** k = stackalloc byte*[8]; byte** v = stackalloc byte*[8];
            UIntPtr* kl = stackalloc UIntPtr[8]; UIntPtr* vl = stackalloc UIntPtr[8];
            // [3, 20]: 4 6 8 ... 20 = 9 rows; in batches of 8, continuing after the last key
            var got = new List<long>();
            long lo = 3;
            for (;;)
            {
                int n = items.ReadRange(lo, 20L, false, 8, k, kl, v, vl);
                for (int i = 0; i < n; i++)
                {
                    long key = Keys.ReadInt64(k[i]);
                    got.Add(key);
                    Assert.Equal(ItemValue(key), System.Text.Encoding.UTF8.GetString(v[i], (int)(ulong)vl[i]), "value " + key);
                }
                if (n < 8) break;
                lo = Keys.ReadInt64(k[n - 1]) + 1;
            }
            Assert.Equal("4,6,8,10,12,14,16,18", string.Join(",", got), "ascending [3, 20)");
            int m = items.ReadRange(3L, 20L, true, 8, k, kl, null, null);
            Assert.Equal(8, m, "descending full batch");
            Assert.Equal(18L, Keys.ReadInt64(k[0]), "descending first (20 excluded)");
            Assert.Equal(4L, Keys.ReadInt64(k[7]), "descending last");
            Assert.Equal(0, items.ReadRange(20L, 3L, false, 8, k, kl, v, vl), "lo > hi");
            Assert.Equal(2, items.ReadRange(long.MinValue, 3L, false, 8, k, kl, v, vl), "from long.MinValue");
            Assert.Equal(1, items.ReadRange(2L * (N - 1), long.MaxValue, false, 8, k, kl, v, vl), "to long.MaxValue");

            var u64 = db.GetTable("u64"); // S2-compressed
            int c = u64.ReadRange(1UL, ulong.MaxValue, true, 8, k, kl, v, vl);
            Assert.Equal(4, c, "u64 rows in [1, max)");
            Assert.Equal(ulong.MaxValue - 1, Keys.ReadUInt64(k[0]), "u64 descending first");
            Assert.Equal("u" + (ulong.MaxValue - 1), System.Text.Encoding.UTF8.GetString(v[0], (int)(ulong)vl[0]), "u64 value");
            Assert.Equal(1UL, Keys.ReadUInt64(k[3]), "u64 descending last");
            Assert.Throws<ArgumentException>(() => u64.ReadRange(1L, 2L, false, 0, null, null, null, null), "int64 bounds on a uint64 table");
            Assert.Throws<ArgumentException>(() => items.ReadRange(1UL, 2UL, false, 0, null, null, null, null), "uint64 bounds on an int64 table");
        }

        [Test]
        public void CompressedTablesAndOverflowValues()
        {
            // zstd strings (with the empty key and a non-ASCII key), S2 composite keys,
            // bytes keys with a 200 KiB value (overflow pages: the library's Go path)
            foreach (var name in new[] { "words", "pairs", "blobs", "u64", "floats", "uuids" })
            {
                var t = db.GetTable(name);
                foreach (bool rev in new[] { false, true })
                {
                    var want = Walk(t, Bound.Unbounded, Bound.Unbounded, rev);
                    foreach (int max in new[] { 1, 2, 64, 5000 })
                    {
                        int calls;
                        Assert.Equal(string.Join(",", want), string.Join(",", Batches(t, Bound.Unbounded, Bound.Unbounded, rev, max, true, out calls)), name + " max " + max + " rev " + rev);
                    }
                    Assert.Equal(string.Join(",", want), string.Join(",", t.All(rev).Select(kv => Hex(kv.Key) + "=" + Hex(kv.Value))), name + " All rev " + rev);
                }
            }
            var words = db.GetTable("words");
            foreach (var lk in Kinds) foreach (var hk in Kinds) foreach (bool rev in new[] { false, true })
            {
                var lo = Make(lk, Keys.String("w00100")); var hi = Make(hk, Keys.String("w02900"));
                int calls;
                Assert.Equal(string.Join(",", Walk(words, lo, hi, rev)), string.Join(",", Batches(words, lo, hi, rev, 97, true, out calls)), "words " + lk + " " + hk + " " + rev);
            }
            var big = db.GetTable("blobs").Range(new byte[] { 1 }, new byte[] { 2 }).Single();
            Assert.Bytes(Big(), big.Value, "200 KiB value");
            var wk = new IntPtr[2]; var wl = new UIntPtr[2];
            Assert.Equal(2, words.ReadRange(Bound.Inclusive(new byte[0]), Bound.Unbounded, false, wk, wl, null, null), "from the empty key");
            Assert.Equal(0, (int)(ulong)wl[0], "the empty key is a real key, the first");
            Assert.Equal(1, words.ReadRange(Bound.Unbounded, Bound.Exclusive(Keys.String("w00001")), false, wk, wl, null, null) - 1, "below w00001: the empty key and w00000");
        }

        [Test]
        public void PrefixEnumerations()
        {
            var blobs = db.GetTable("blobs"); // keys "", 00, 00 00, 01, ff
            Assert.Equal(2, blobs.Prefix(new byte[] { 0 }).Count(), "prefix 00");
            Assert.Equal("00-00,00", string.Join(",", blobs.Prefix(new byte[] { 0 }, reverse: true).Select(kv => Hex(kv.Key))), "prefix 00 reversed");
            Assert.Equal("FF", string.Join(",", blobs.Prefix(new byte[] { 0xff }).Select(kv => Hex(kv.Key))), "prefix ff: no upper bound");
            Assert.Equal(0, blobs.Prefix(new byte[] { 0xff, 0xff }).Count(), "prefix ff ff");
            Assert.Equal(5, blobs.Prefix(new byte[0]).Count(), "empty prefix");
            var words = db.GetTable("words");
            foreach (bool rev in new[] { false, true })
            {
                var want = new List<string>();
                using (var c = words.OpenPrefixCursor(Fx.B("w01")))
                    while (rev ? c.Prev() : c.Next()) want.Add(Hex(c.Key) + "=" + Hex(c.Value));
                Assert.Equal(1000, want.Count, "w01 rows");
                var p = Fx.B("w01");
                var en = words.Prefix(p, rev);
                p[1] = (byte)'9'; // the enumeration keeps its own copy of the prefix
                Assert.Equal(string.Join(",", want), string.Join(",", en.Select(kv => Hex(kv.Key) + "=" + Hex(kv.Value))), "prefix w01 rev " + rev);
            }
            // keys handed out may be changed by the caller: the next batch does not start from them
            int seen = 0;
            foreach (var kv in items.Range(Bound.Unbounded, Bound.Unbounded)) { kv.Key[0] = 0; seen++; }
            Assert.Equal(N, seen, "rows after mutating handed-out keys");
        }

        [Test]
        public void Arguments()
        {
            byte** k = stackalloc byte*[4]; byte** v = stackalloc byte*[4];
            UIntPtr* kl = stackalloc UIntPtr[4]; UIntPtr* vl = stackalloc UIntPtr[4];
            byte* key = stackalloc byte[8]; Keys.PutInt64(10, key);
            var U = BoundKind.Unbounded; var I = BoundKind.Inclusive; var E = BoundKind.Exclusive;
            Assert.Equal(4, items.ReadRange(key, 8, I, null, 0, U, false, 4, k, kl, v, vl), "raw bounds");
            Assert.Equal(10L, Keys.ReadInt64(k[0]), "raw first");
            Assert.Equal(1, items.ReadRange(key, 8, E, null, 5, U, false, 1, k, kl, null, null), "exclusive; an unbounded bound's pointer/length ignored");
            Assert.Equal(12L, Keys.ReadInt64(k[0]), "exclusive first");
            Assert.Equal(4, items.ReadRange(null, 0, U, key, 8, E, true, 4, k, kl, v, vl), "reverse below 10");
            Assert.Equal(4L, Keys.ReadInt64(k[2]), "reverse third");
            Assert.Equal(0, items.ReadRange(key, 8, I, key, 8, E, false, 4, k, kl, v, vl), "empty range");
            Assert.Equal(0, items.ReadRange(key, 8, I, null, 0, U, false, 0, null, null, null, null), "max 0");

            Assert.Throws<ArgumentOutOfRangeException>(() => items.ReadRange(Bound.Unbounded, Bound.Unbounded, false, -1, null, null, null, null), "max < 0");
            Assert.Throws<ArgumentOutOfRangeException>(() => items.ReadRange(Bound.Unbounded, Bound.Unbounded, false, (1 << 24) + 1, null, null, null, null), "max > 2^24");
            Assert.Throws<ArgumentNullException>(() => items.ReadRange(Bound.Unbounded, Bound.Unbounded, false, 1, null, null, null, null), "null keys");
            Assert.Throws<ArgumentException>(() => RawOneValueArray(items), "values without valueLengths");
            Assert.Throws<ArgumentOutOfRangeException>(() => items.ReadRange(null, 0, (BoundKind)7, null, 0, BoundKind.Unbounded, false, 0, null, null, null, null), "bad lo kind");
            Assert.Throws<ArgumentOutOfRangeException>(() => items.ReadRange(null, 0, BoundKind.Unbounded, null, 0, (BoundKind)(-1), false, 0, null, null, null, null), "bad hi kind");
            Assert.Throws<ArgumentException>(() => items.ReadRange(null, 3, BoundKind.Inclusive, null, 0, BoundKind.Unbounded, false, 0, null, null, null, null), "null pointer with a length");
            Assert.Throws<ArgumentException>(() => RawNegativeLength(items), "negative length");

            // managed arrays
            var kp = new IntPtr[3]; var kls = new UIntPtr[3]; var vp = new IntPtr[3]; var vls = new UIntPtr[3];
            Assert.Equal(3, items.ReadRange(Bound.Inclusive(Keys.Int64(11)), Bound.Unbounded, false, kp, kls, vp, vls), "arrays");
            Assert.Equal(12L, Keys.ReadInt64((byte*)kp[0]), "arrays first key");
            Assert.Equal(ItemValue(16), System.Text.Encoding.UTF8.GetString((byte*)vp[2], (int)(ulong)vls[2]), "arrays value");
            Assert.Equal(1, items.ReadRange(Bound.Unbounded, Bound.Inclusive(Keys.Int64(0)), true, kp, kls, null, null), "arrays, keys only");
            Assert.Equal(0, items.ReadRange(Bound.Unbounded, Bound.Unbounded, false, new IntPtr[0], new UIntPtr[0], null, null), "empty arrays");
            Assert.Throws<ArgumentNullException>(() => items.ReadRange(Bound.Unbounded, Bound.Unbounded, false, null, kls, vp, vls), "null key array");
            Assert.Throws<ArgumentNullException>(() => items.ReadRange(Bound.Unbounded, Bound.Unbounded, false, kp, null, vp, vls), "null key length array");
            Assert.Throws<ArgumentException>(() => items.ReadRange(Bound.Unbounded, Bound.Unbounded, false, kp, new UIntPtr[2], vp, vls), "short key lengths");
            Assert.Throws<ArgumentException>(() => items.ReadRange(Bound.Unbounded, Bound.Unbounded, false, kp, kls, new IntPtr[2], vls), "short values");
            Assert.Throws<ArgumentException>(() => items.ReadRange(Bound.Unbounded, Bound.Unbounded, false, kp, kls, vp, null), "values without lengths");
            Assert.Equal(3, items.ReadRange(new Bound(), Bound.Unbounded, false, kp, kls, vp, vls), "default(Bound) is unbounded");
        }

        static void RawOneValueArray(Table t)
        {
            byte** k = stackalloc byte*[1]; byte** v = stackalloc byte*[1]; UIntPtr* kl = stackalloc UIntPtr[1];
            t.ReadRange(Bound.Unbounded, Bound.Unbounded, false, 1, k, kl, v, null);
        }

        static void RawNegativeLength(Table t)
        {
            byte* key = stackalloc byte[8];
            t.ReadRange(key, -1, BoundKind.Exclusive, null, 0, BoundKind.Unbounded, false, 0, null, null, null, null);
        }

        // The enumerations read batches of FirstBatch rows, then doubling: the
        // rows are the cursor walk's whatever the first size, and the first n
        // rows taken are the walk's first n for n on and around every batch
        // boundary (16 | 32 | 64 | 128 | 256 | 256 ... for the default 16).
        [Test]
        public void GrowingBatchesKeepTheRows()
        {
            var words = db.GetTable("words");
            var ix = items.Index("by_category");
            int saved = Table.FirstBatch;
            try
            {
                foreach (int first in new[] { 1, 3, 16, 64, 256 })
                {
                    Table.FirstBatch = first;
                    var takes = new List<int> { 0, 1, 2, 99, 100, 101, 1000, 1023, 1024, 1025 };
                    for (int b = first, end = first; end < 2000; b = Math.Min(2 * b, 256), end += b)
                        takes.AddRange(new[] { end - 1, end, end + 1 });
                    foreach (bool rev in new[] { false, true })
                    {
                        string what = "first " + first + (rev ? " reverse" : "");
                        foreach (var t in new[] { items, words })
                        {
                            var want = Walk(t, Bound.Unbounded, Bound.Unbounded, rev);
                            Func<int, List<string>> got = n => t.Range(Bound.Unbounded, Bound.Unbounded, rev).Take(n).Select(kv => Hex(kv.Key) + "=" + Hex(kv.Value)).ToList();
                            Assert.Equal(string.Join(",", want), string.Join(",", got(int.MaxValue)), t.Name + " all, " + what);
                            foreach (int n in takes)
                                Assert.Equal(string.Join(",", want.Take(n)), string.Join(",", got(n)), t.Name + " take " + n + ", " + what);
                            var lo = Bound.Exclusive(t.At(500).Key);
                            var mid = Walk(t, lo, Bound.Unbounded, rev);
                            Assert.Equal(string.Join(",", mid.Take(300)), string.Join(",", t.Range(lo, Bound.Unbounded, rev).Take(300).Select(kv => Hex(kv.Key) + "=" + Hex(kv.Value))), t.Name + " (row 500, ...) take 300, " + what);
                        }
                        var p = words.Prefix("w01", rev).Select(kv => Fx.S(kv.Key)).ToList();
                        Assert.Equal(1000, p.Count, "prefix w01 rows, " + what);
                        Assert.Equal(rev ? "w01999" : "w01000", p[0], "prefix first, " + what);
                        var iwant = new List<string>();
                        using (var c = ix.OpenCursor())
                            while (rev ? c.Prev() : c.Next()) iwant.Add(Hex(c.Key) + "/" + Hex(c.PrimaryKey) + "=" + Hex(c.Value));
                        var igot = ix.Range(Bound.Unbounded, Bound.Unbounded, rev).Select(e => Hex(e.IndexKey) + "/" + Hex(e.PrimaryKey) + "=" + Hex(e.Value)).ToList();
                        Assert.Equal(N, igot.Count, "index rows, " + what);
                        Assert.Equal(string.Join(",", iwant), string.Join(",", igot), "index range, " + what);
                        Assert.Equal(string.Join(",", iwant.Take(300)), string.Join(",", ix.Range(Bound.Unbounded, Bound.Unbounded, rev).Take(300).Select(e => Hex(e.IndexKey) + "/" + Hex(e.PrimaryKey) + "=" + Hex(e.Value))), "index take 300, " + what);
                    }
                }
            }
            finally { Table.FirstBatch = saved; }
        }

        [Test]
        public void UseAfterDispose()
        {
            var d = Fx.Open();
            var t = d.GetTable("items");
            var kp = new IntPtr[4]; var kl = new UIntPtr[4];
            var en = t.Range(Bound.Unbounded, Bound.Unbounded).GetEnumerator();
            Assert.True(en.MoveNext(), "first row");
            for (int i = 1; i < Table.FirstBatch; i++) Assert.True(en.MoveNext(), "rows of the first batch");
            var lazy = t.Prefix(new byte[0]);
            d.Dispose();
            Assert.Throws<ObjectDisposedException>(() => en.MoveNext(), "next batch after Dispose");
            Assert.Throws<ObjectDisposedException>(() => lazy.Count(), "enumeration started after Dispose");
            Assert.Throws<ObjectDisposedException>(() => t.Range(1L, 2L), "Range after Dispose");
            Assert.Throws<ObjectDisposedException>(() => t.ReadRange(Bound.Unbounded, Bound.Unbounded, false, kp, kl, null, null), "ReadRange after Dispose");
            Assert.Throws<ObjectDisposedException>(() => t.ReadRange(Bound.Unbounded, Bound.Unbounded, false, new IntPtr[0], new UIntPtr[0], null, null), "max 0 after Dispose");
            Assert.Throws<ObjectDisposedException>(() => DisposedRaw(t), "raw ReadRange after Dispose");
        }

        static void DisposedRaw(Table t)
        {
            byte** k = stackalloc byte*[2]; UIntPtr* kl = stackalloc UIntPtr[2];
            t.ReadRange(0L, 10L, false, 2, k, kl, null, null);
        }
    }
}
