// SpanTests.cs - the Span members that .NET builds compile in
// (#if NETCOREAPP || NETSTANDARD2_1), checked against their byte[]
// counterparts. `make test` runs the suite twice: as Mono builds it by
// default, and with NETSTANDARD2_1 defined (Mono's corlib has Span), so
// the .NET-only source is compiled and run here too.
#if NETCOREAPP || NETSTANDARD2_1
using System;
using System.IO;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed unsafe class SpanTests : IDisposable
    {
        readonly Database db = Fx.Open();
        readonly Table items;
        public SpanTests() { items = db.GetTable("items"); }
        public void Dispose() { db.Dispose(); }

        [Test]
        public void TryGetAndRank()
        {
            foreach (long k in new long[] { -1, 0, 1, 2, 7, 998, 19998, 20000 })
            {
                byte[] key = Keys.Int64(k), v;
                bool want = items.TryGet(key, out byte[] w);
                Assert.Equal(want, items.TryGet(new ReadOnlySpan<byte>(key), out v), "TryGet(span) " + k);
                if (want) Assert.Bytes(w, v, "value " + k);
                var dest = new byte[64];
                int n = items.TryGet(new ReadOnlySpan<byte>(key), new Span<byte>(dest));
                Assert.Equal(want ? w.Length : -1, n, "TryGet(span, dest) " + k);
                if (want) Assert.Str(ItemValue(k), dest.AsSpan(0, n).ToArray(), "copied " + k);
                if (want) Assert.Equal(w.Length, items.TryGet(new ReadOnlySpan<byte>(key), new Span<byte>(dest, 0, 2)), "too small: length only");
                Assert.Equal(items.Rank(key), items.Rank(new ReadOnlySpan<byte>(key)), "Rank " + k);
            }
            Assert.Throws<DryDBException>(() => items.TryGet(new ReadOnlySpan<byte>(new byte[3]), out byte[] _), "bad key width");
        }

        [Test]
        public void ReadRangeSpans()
        {
            var keys = new IntPtr[150];
            var kl = new UIntPtr[150];
            var vals = new IntPtr[150];
            var vl = new UIntPtr[150];
            byte[] lo = Keys.Int64(100), hi = Keys.Int64(400);
            foreach (bool reverse in new[] { false, true })
            {
                int n = items.ReadRange(lo, BoundKind.Inclusive, hi, BoundKind.Exclusive, reverse, keys, kl, vals, vl);
                Assert.Equal(150, n, "rows of [100, 400)");
                for (int i = 0; i < n; i++)
                {
                    long want = reverse ? 398 - 2 * i : 100 + 2 * i;
                    Assert.Equal(want, Keys.ReadInt64((byte*)keys[i]), "key " + i);
                    Assert.Str(ItemValue(want), new ReadOnlySpan<byte>((void*)vals[i], (int)(ulong)vl[i]).ToArray(), "value " + i);
                }
            }
            int m = items.ReadRange(ReadOnlySpan<byte>.Empty, BoundKind.Unbounded, hi, BoundKind.Inclusive, false,
                                    keys.AsSpan(0, 10), kl, Span<IntPtr>.Empty, Span<UIntPtr>.Empty);
            Assert.Equal(10, m, "keys only, unbounded start");
            Assert.Equal(0L, Keys.ReadInt64((byte*)keys[0]), "first key");
            Assert.Throws<ArgumentException>(() => items.ReadRange(lo, BoundKind.Inclusive, hi, BoundKind.Inclusive, false,
                                                                  keys, kl.AsSpan(0, 3), vals, vl), "short key lengths");
            Assert.Throws<ArgumentException>(() => items.ReadRange(lo, BoundKind.Inclusive, hi, BoundKind.Inclusive, false,
                                                                  keys, kl, vals.AsSpan(0, 3), vl), "short values");
            Assert.Throws<ArgumentOutOfRangeException>(() => items.ReadRange(lo, (BoundKind)9, hi, BoundKind.Inclusive, false,
                                                                            keys, kl, vals, vl), "bad bound kind");
        }

        [Test]
        public void AppendAndCursorSpans()
        {
            var p = Path.Combine(Fx.Dir, "span.drydb");
            using (var b = new DatabaseBuilder())
            {
                var t = b.CreateTable("t", KeyKind.Bytes);
                for (int i = 0; i < 300; i++)
                    t.Append(new ReadOnlySpan<byte>(B("k" + i.ToString("D4"))), new ReadOnlySpan<byte>(B("v" + i)));
                t.Append(ReadOnlySpan<byte>.Empty, ReadOnlySpan<byte>.Empty);
                b.Build(p);
            }
            using (var d = Database.Open(p))
            using (var c = d.GetTable("t").OpenCursor())
            {
                Assert.True(c.Next(), "first row");
                Assert.Equal(0, c.KeySpan.Length, "empty key first");
                Assert.Equal(0, c.ValueSpan.Length, "empty value");
                for (int i = 0; i < 300; i++)
                {
                    Assert.True(c.Next(), "row " + i);
                    Assert.Str("k" + i.ToString("D4"), c.KeySpan.ToArray(), "KeySpan " + i);
                    Assert.Str("v" + i, c.ValueSpan.ToArray(), "ValueSpan " + i);
                }
                Assert.False(c.Next(), "end");
                Assert.Throws<InvalidOperationException>(() => { var _ = c.KeySpan.Length; }, "KeySpan off a row");
            }
        }
    }
}
#endif
