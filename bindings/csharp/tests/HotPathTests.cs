// HotPathTests.cs - the allocation-free and zero-copy members: GetMany into
// caller arrays (copies or pointers) and Cursor.NextBatch; their argument
// errors, use after Dispose, and Dispose racing with them.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using static DryDB.Tests.Fx;

namespace DryDB.Tests
{
    [TestClass]
    public sealed unsafe class HotPathTests : IDisposable
    {
        readonly Database db = Fx.Open();
        readonly Table items;
        public HotPathTests() { items = db.GetTable("items"); }
        public void Dispose() { db.Dispose(); }

        static string Str(byte* p, UIntPtr n) { return System.Text.Encoding.UTF8.GetString(p, (int)(ulong)n); }

        [Test]
        public void GetManyIntoArray()
        {
            var keys = Enumerable.Range(-5, 705).Select(i => (long)i).ToArray(); // > 256: several crossings
            var vals = new byte[keys.Length + 3][];
            for (int i = 0; i < vals.Length; i++) vals[i] = new byte[1]; // overwritten, null where absent
            int found = items.GetMany(keys, 2, vals, 3, keys.Length - 2);
            int want = 0;
            for (int i = 2; i < keys.Length; i++)
            {
                long k = keys[i];
                if (k >= 0 && k % 2 == 0) { Assert.Str(ItemValue(k), vals[i + 1], "key " + k); want++; }
                else Assert.True(vals[i + 1] == null, "absent " + k);
            }
            Assert.Equal(want, found, "found");
            Assert.Equal(1, vals[0].Length, "before valueIndex untouched");
            Assert.Equal(0, items.GetMany(keys, keys.Length, vals, 0, 0), "empty span at the end");

            var u64 = db.GetTable("u64"); // S2-compressed
            var uv = new byte[3][];
            Assert.Equal(2, u64.GetMany(new[] { 1UL, 2UL, ulong.MaxValue }, 0, uv, 0, 3), "u64 found");
            Assert.Str("u1", uv[0], "u1"); Assert.True(uv[1] == null, "u2"); Assert.Str("u" + ulong.MaxValue, uv[2], "umax");

            Assert.Throws<ArgumentNullException>(() => items.GetMany((long[])null, 0, vals, 0, 1), "null keys");
            Assert.Throws<ArgumentNullException>(() => items.GetMany(keys, 0, null, 0, 1), "null values");
            Assert.Throws<ArgumentOutOfRangeException>(() => items.GetMany(keys, -1, vals, 0, 1), "negative keyIndex");
            Assert.Throws<ArgumentOutOfRangeException>(() => items.GetMany(keys, 0, vals, -1, 1), "negative valueIndex");
            Assert.Throws<ArgumentOutOfRangeException>(() => items.GetMany(keys, 0, vals, 0, -1), "negative count");
            Assert.Throws<ArgumentException>(() => items.GetMany(keys, 1, vals, 0, keys.Length), "keys too short");
            Assert.Throws<ArgumentException>(() => items.GetMany(keys, 0, new byte[2][], 0, 3), "values too short");
            Assert.Throws<ArgumentException>(() => u64.GetMany(keys, 0, vals, 0, 1), "int64 keys on a uint64 table");
            Assert.Throws<ArgumentException>(() => items.GetMany(new ulong[1], 0, vals, 0, 1), "uint64 keys on an int64 table");
        }

        [Test]
        public void GetManyZeroCopy()
        {
            foreach (int n in new[] { 1, 300, 2000 }) // 2000: key buffer on the heap
            {
                var keys = Enumerable.Range(0, n).Select(i => (long)(i * 3)).ToArray();
                var vp = new IntPtr[n];
                var vl = new UIntPtr[n];
                int found;
                fixed (IntPtr* v = vp) fixed (UIntPtr* l = vl)
                {
                    found = items.GetMany(keys, 0, n, (byte**)v, l);
                    for (int i = 0; i < n; i++)
                    {
                        if (keys[i] % 2 == 0) Assert.Equal(ItemValue(keys[i]), Str(((byte**)v)[i], l[i]), "key " + keys[i]);
                        else Assert.True(v[i] == IntPtr.Zero && (ulong)l[i] == 0, "absent " + keys[i]);
                    }
                }
                Assert.Equal(keys.Count(k => k % 2 == 0), found, "found of " + n);
            }
            // byte* keys, one crossing; a compressed table (thread buffer, all valid together)
            var words = db.GetTable("words");
            var ks = new[] { "w00001", "zzz", "", "w02999" }.Select(Keys.String).ToArray();
            var flat = ks.SelectMany(k => k).ToArray();
            var lens = ks.Select(k => (UIntPtr)k.Length).ToArray();
            // (stackalloc into a variable a lambda captures: mcs emits invalid IL; go through a local)
            byte** wv0 = stackalloc byte*[4]; UIntPtr* wl0 = stackalloc UIntPtr[4];
            byte** wv = wv0; UIntPtr* wl = wl0;
            fixed (byte* f = flat) fixed (UIntPtr* l = lens)
                Assert.Equal(3, words.GetMany(4, f, l, wv, wl), "words found");
            Assert.Equal("w00001w00001w00001", Str(wv[0], wl[0]), "w1");
            Assert.True(wv[1] == null, "zzz");
            Assert.Equal("empty-key", Str(wv[2], wl[2]), "empty key");
            Assert.Equal("w02999w02999w02999", Str(wv[3], wl[3]), "last");

            var one = new long[1];
            Assert.Equal(0, items.GetMany(one, 1, 0, wv, wl), "count 0");
            Assert.Throws<ArgumentNullException>(() => items.GetMany(one, 0, 1, null, wl), "null values");
            Assert.Throws<ArgumentNullException>(() => items.GetMany(one, 0, 1, wv, null), "null lengths");
            Assert.Throws<ArgumentNullException>(() => items.GetMany((long[])null, 0, 1, wv, wl), "null keys");
            Assert.Throws<ArgumentException>(() => items.GetMany(one, 0, 2, wv, wl), "count past the keys");
            Assert.Throws<ArgumentException>(() => words.GetMany(one, 0, 1, wv, wl), "int64 keys on a string table");
            Assert.Throws<ArgumentException>(() => items.GetMany(-1, (byte*)null, null, wv, wl), "n < 0");
            Assert.Throws<ArgumentNullException>(() => items.GetMany(1, (byte*)null, null, wv, wl), "null key buffer");
        }

        [Test]
        public void UseAfterDispose()
        {
            var d = Fx.Open();
            var t = d.GetTable("items");
            var c = t.OpenCursor();
            d.Dispose();
            var vals = new byte[1][];
            byte** p0 = stackalloc byte*[1]; UIntPtr* l0 = stackalloc UIntPtr[1];
            byte** p = p0; UIntPtr* l = l0;
            Assert.Throws<ObjectDisposedException>(() => t.GetMany(new long[] { 0 }, 0, vals, 0, 1), "GetMany copies");
            Assert.Throws<ObjectDisposedException>(() => t.GetMany(new long[] { 0 }, 0, 1, p, l), "GetMany pointers");
            byte[] v;
            Assert.Throws<ObjectDisposedException>(() => t.TryGet(0L, out v), "TryGet");
            Assert.Throws<ObjectDisposedException>(() => c.NextBatch(1, p, l, p, l), "NextBatch, database disposed");
            c.Dispose();
            using (var d2 = Fx.Open())
            {
                var c2 = d2.GetTable("items").OpenCursor();
                c2.Dispose();
                Assert.Throws<ObjectDisposedException>(() => c2.NextBatch(1, p, l, p, l), "NextBatch, cursor disposed");
            }
        }

        static List<long> Walk(Cursor c, int max, byte** k, UIntPtr* kl, byte** v, UIntPtr* vl)
        {
            var r = new List<long>();
            int m;
            while ((m = c.NextBatch(max, k, kl, v, vl)) > 0)
            {
                Assert.True(m <= max, "at most max");
                for (int i = 0; i < m; i++)
                {
                    long key = Keys.ReadInt64(k[i]);
                    Assert.Equal(ItemValue(key), Str(v[i], vl[i]), "value of " + key);
                    r.Add(key);
                }
                Assert.True(c.IsValid && c.KeyInt64 == r[r.Count - 1], "on the last entry returned");
            }
            Assert.False(c.IsValid, "at end after 0");
            Assert.Equal(0, c.NextBatch(max, k, kl, v, vl), "stays at end");
            return r;
        }

        [Test]
        public void NextBatchWalks()
        {
            byte** k = stackalloc byte*[200]; byte** v = stackalloc byte*[200];
            UIntPtr* kl = stackalloc UIntPtr[200]; UIntPtr* vl = stackalloc UIntPtr[200];
            var all = Enumerable.Range(0, N).Select(i => ItemKey(i)).ToList();
            foreach (int max in new[] { 1, 7, 64, 200 })
                using (var c = items.OpenCursor())
                    Assert.True(Walk(c, max, k, kl, v, vl).SequenceEqual(all), "whole table, max " + max);
            using (var c = items.OpenCursor(Bound.Exclusive(10L), Bound.Inclusive(40L)))
                Assert.True(Walk(c, 4, k, kl, v, vl).SequenceEqual(Enumerable.Range(6, 15).Select(i => 2L * i)), "bounded (10, 40]");

            using (var c = items.OpenCursor())
            {
                // After Next (read-ahead buffered): the rest of the buffer, then native batches.
                Assert.True(c.Next() && c.Next() && c.KeyInt64 == 2, "two Next");
                var got = Walk(c, 5, k, kl, v, vl);
                Assert.True(got.SequenceEqual(all.Skip(2)), "NextBatch after Next");
                // After Seek: starts after the sought entry, skipping it (max 1 and more).
                Assert.True(c.Seek(100L) && c.KeyInt64 == 100, "seek");
                Assert.Equal(1, c.NextBatch(1, k, kl, v, vl), "max 1 after seek");
                Assert.Equal(102L, Keys.ReadInt64(k[0]), "entry after the sought one");
                Assert.True(c.Seek(100L), "seek again");
                Assert.Equal(9, c.NextBatch(9, k, kl, v, vl) + 1, "9 requested: 8 after the sought one (native batch starts on it)");
                Assert.Equal(102L, Keys.ReadInt64(k[0]), "first after seek");
                // Next and Prev carry on from the last entry returned.
                Assert.Equal(116L, c.KeyInt64, "current = last returned");
                Assert.True(c.Next() && c.KeyInt64 == 118, "Next after NextBatch");
                Assert.Equal(2, c.NextBatch(2, k, kl, v, vl), "two more");
                Assert.True(c.Prev() && c.KeyInt64 == 120, "Prev after NextBatch");
                Assert.True(c.Prev() && c.KeyInt64 == 118, "Prev again");
                // The last entry: a batch of one, then the end.
                Assert.True(c.SeekExact(ItemKey(N - 2)), "seek to the one before last");
                Assert.Equal(1, c.NextBatch(10, k, kl, v, vl), "only the last one is left");
                Assert.Equal(ItemKey(N - 1), Keys.ReadInt64(k[0]), "last key");
                Assert.Equal(0, c.NextBatch(10, k, kl, v, vl), "end");
                Assert.Equal(0, c.NextBatch(0, k, kl, v, vl), "max 0");
            }
            // Compressed table: every batch's pointers hold until the next move.
            var words = db.GetTable("words");
            using (var c = words.OpenCursor())
            {
                int n = 0; int m;
                string prev = null;
                while ((m = c.NextBatch(50, k, kl, v, vl)) > 0)
                    for (int i = 0; i < m; i++, n++)
                    {
                        string key = Str(k[i], kl[i]), val = Str(v[i], vl[i]);
                        Assert.Equal(key == "" ? "empty-key" : key == "über" ? "umlaut" : key + key + key, val, "words value of " + key);
                        Assert.True(prev == null || string.CompareOrdinal(prev, key) < 0 || prev == "", "sorted");
                        prev = key;
                    }
                Assert.Equal(3002, n, "words rows");
            }
        }

        [Test]
        public void NextBatchErrors()
        {
            byte** k0 = stackalloc byte*[2]; UIntPtr* kl0 = stackalloc UIntPtr[2];
            byte** k = k0; UIntPtr* kl = kl0;
            using (var c = items.OpenCursor())
            {
                Assert.Throws<ArgumentOutOfRangeException>(() => c.NextBatch(-1, k, kl, k, kl), "max < 0");
                Assert.Throws<ArgumentNullException>(() => c.NextBatch(1, null, kl, k, kl), "null keys");
                Assert.Throws<ArgumentNullException>(() => c.NextBatch(1, k, null, k, kl), "null key lengths");
                Assert.Throws<ArgumentNullException>(() => c.NextBatch(1, k, kl, null, kl), "null values");
                Assert.Throws<ArgumentNullException>(() => c.NextBatch(1, k, kl, k, null), "null value lengths");
                Assert.False(c.IsValid, "errors do not move the cursor");
            }
            using (var c = items.Index(items.Indexes[0]).OpenCursor())
                Assert.Throws<InvalidOperationException>(() => c.NextBatch(1, k, kl, k, kl), "index cursor");
        }

        [Test]
        public void DisposeWhileGetMany()
        {
            for (int rep = 0; rep < 5; rep++)
            {
                var d = Fx.Open();
                var t = d.GetTable("items");
                long disposedSeen = 0;
                var errors = new List<Exception>();
                var started = new CountdownEvent(4);
                var ts = Enumerable.Range(0, 4).Select(x => new Thread(() =>
                {
                    var keys = Enumerable.Range(0, 300).Select(i => (long)(i * 2 + x)).ToArray();
                    var vals = new byte[300][];
                    started.Signal();
                    try
                    {
                        while (true)
                        {
                            t.GetMany(keys, 0, vals, 0, keys.Length);
                            for (int i = 0; i < keys.Length; i += 37)
                                if (keys[i] % 2 == 0) Assert.Str(ItemValue(keys[i]), vals[i], "racing value");
                            byte[] v;
                            if (!t.TryGet(keys[x], out v) && keys[x] % 2 == 0) throw new Exception("lost key");
                        }
                    }
                    catch (ObjectDisposedException) { Interlocked.Increment(ref disposedSeen); }
                    catch (Exception e) { lock (errors) errors.Add(e); }
                })).ToList();
                ts.ForEach(th => th.Start());
                started.Wait();
                Thread.Sleep(10 + rep * 5);
                d.Dispose();
                ts.ForEach(th => th.Join());
                if (errors.Count > 0) throw new AggregateException(errors);
                Assert.Equal(4L, disposedSeen, "every thread ends with ObjectDisposedException");
            }
        }
    }
}
