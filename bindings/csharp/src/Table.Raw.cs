// Table.Raw.cs - the calls that take or return pointers (and spans on .NET):
// keys as pointer + length, values copied into the caller's memory, and
// zero-copy batches whose pointers live as the docs of each call say.

using System;

namespace DryDB
{
    public sealed unsafe partial class Table
    {
        // ------------------------------------------------------------ point reads

        /// <summary>Hot path: key as pointer + length. The value is copied.</summary>
        public bool TryGet(byte* key, int keyLength, out byte[] value)
        {
            if (keyLength < 0 || (key == null && keyLength != 0)) throw new ArgumentException("bad key pointer/length", "keyLength");
            return GetCore(key, keyLength, out value);
        }

        /// <summary>Hot path without allocation: copies the value into
        /// <paramref name="dest"/> if it fits. Returns the value's length, -1 if the
        /// key is absent; a result larger than dest.Length means nothing was copied.</summary>
        public int TryGet(byte* key, int keyLength, byte[] dest)
        {
            if (dest == null) throw new ArgumentNullException("dest");
            if (keyLength < 0 || (key == null && keyLength != 0)) throw new ArgumentException("bad key pointer/length", "keyLength");
            fixed (byte* d = dest) return GetInto(key, keyLength, d, dest.Length);
        }

        // The value copied into dest by the library (nothing when it is longer).
        int GetInto(byte* key, int keyLength, byte* dest, int destLength)
        {
            UIntPtr vl; int rc;
            NativeCol c;
            c.buf = dest; c.cap = (UIntPtr)destLength; c.lens = &vl;
            db.Enter();
            try { rc = Native.drydb__copy_get(th, key, (UIntPtr)keyLength, &c); }
            finally { db.Leave(); }
            if (rc == Native.NOTFOUND) return -1;
            if (rc != Native.OK && rc != Native.FULL) throw Native.Error(rc);
            ulong n = (ulong)vl;
            return n > int.MaxValue ? int.MaxValue : (int)n;
        }

#if NETCOREAPP || NETSTANDARD2_1
        // Span overloads (.NET builds; `make test-span` compiles them with mcs too).

        public bool TryGet(ReadOnlySpan<byte> key, out byte[] value)
        {
            fixed (byte* k = key) return TryGet(k, key.Length, out value);
        }

        /// <summary>Copies the value into <paramref name="dest"/> if it fits. Returns
        /// the value's length, -1 if absent; a result larger than dest.Length means
        /// nothing was copied.</summary>
        public int TryGet(ReadOnlySpan<byte> key, Span<byte> dest)
        {
            fixed (byte* k = key) fixed (byte* d = dest) return GetInto(k, key.Length, d, dest.Length);
        }

        public long Rank(ReadOnlySpan<byte> key)
        {
            using (db.Call())
            {
                ulong n; int rc;
                fixed (byte* k = key) rc = Native.drydb_rank(th, k, (UIntPtr)key.Length, &n);
                Native.Check(rc);
                return (long)n;
            }
        }
#endif

        // ------------------------------------------------------------ batches

        /// <summary>Hot path: n keys concatenated in <paramref name="keys"/> with
        /// their lengths; values[i] = copy of the value or null if absent. Returns
        /// the number found.</summary>
        public int GetMany(int n, byte* keys, UIntPtr* keyLengths, byte[][] values)
        {
            if (n < 0) throw new ArgumentException("n < 0", "n");
            if (values == null) throw new ArgumentNullException("values");
            if (values.Length < n) throw new ArgumentException("values is shorter than n", "values");
            if (n == 0) return 0;
            if (keys == null || keyLengths == null) throw new ArgumentNullException("keys");
            int found = 0, chunk = Math.Min(ManyChunk, n);
            byte* fnd = stackalloc byte[chunk];
            int done = 0;
            byte* kp = keys;
            while (done < n)
            {
                int c = Math.Min(ManyChunk, n - done);
                found += ManyChunkCopy(c, kp, keyLengths + done, fnd, values, done);
                for (int i = 0; i < c; i++) kp += (long)(ulong)keyLengths[done + i];
                done += c;
            }
            return found;
        }

        /// <summary>Zero-copy batch lookup in one crossing: n keys concatenated in
        /// <paramref name="keys"/> with their lengths; writes values[i] (null if
        /// absent) and valueLengths[i] for i in [0, n). Returns the number found.
        /// The pointers are valid until the database is disposed for uncompressed
        /// tables, and for compressed ones until this thread's next
        /// TryGet/GetMany/TryGetAt/index get (all n stay valid together). Nothing
        /// keeps the database open while they are read: do not dispose it meanwhile.
        /// Nothing guards them either: reading a value whose page the file lost
        /// (truncated while open) kills the process with SIGBUS; the copying
        /// overloads report that as DryDBException (Status.Corrupt).</summary>
        public int GetMany(int n, byte* keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (n < 0) throw new ArgumentException("n < 0", "n");
            if (n == 0) return 0;
            if (keys == null || keyLengths == null) throw new ArgumentNullException("keys");
            if (values == null || valueLengths == null) throw new ArgumentNullException("values");
            return ManyRaw(n, keys, keyLengths, values, valueLengths);
        }

        int ManyRaw(int n, byte* keys, UIntPtr* klens, byte** values, UIntPtr* vlens)
        {
            byte[] heap = null;
            byte* fnd;
            if (n <= 4096) { byte* f = stackalloc byte[n]; fnd = f; }
            else { heap = new byte[n]; fixed (byte* f = heap) return ManyRawFound(n, keys, klens, values, vlens, f); }
            return ManyRawFound(n, keys, klens, values, vlens, fnd);
        }

        int ManyRawFound(int n, byte* keys, UIntPtr* klens, byte** values, UIntPtr* vlens, byte* fnd)
        {
            int rc;
            db.Enter();
            try { rc = Native.drydb_get_many(th, (UIntPtr)n, keys, klens, values, vlens, fnd); }
            finally { db.Leave(); }
            if (rc != Native.OK) throw Native.Error(rc);
            int found = 0;
            for (int i = 0; i < n; i++) found += fnd[i];
            return found;
        }

        /// <summary>Zero-copy batch lookup for int64 tables, in one crossing:
        /// writes values[i] (null if absent) and valueLengths[i] for the keys
        /// keys[keyIndex + i], i in [0, count). Returns the number found. Pointer
        /// lifetimes as for GetMany(int, byte*, UIntPtr*, byte**, UIntPtr*).</summary>
        public int GetMany(long[] keys, int keyIndex, int count, byte** values, UIntPtr* valueLengths)
        {
            CheckSpan(keys, keyIndex, count, "keys");
            if (values == null || valueLengths == null) throw new ArgumentNullException("values");
            if (kind != KeyKind.Int64) Kind(KeyKind.Int64);
            if (count == 0) return 0;
            if (count <= 1024)
            {
                ulong* kb = stackalloc ulong[count];
                UIntPtr* kl = stackalloc UIntPtr[count];
                return ManyRawInt64(keys, keyIndex, count, kb, kl, values, valueLengths);
            }
            var kbh = new ulong[count];
            var klh = new UIntPtr[count];
            fixed (ulong* kb = kbh) fixed (UIntPtr* kl = klh) return ManyRawInt64(keys, keyIndex, count, kb, kl, values, valueLengths);
        }

        int ManyRawInt64(long[] keys, int keyIndex, int count, ulong* kb, UIntPtr* kl, byte** values, UIntPtr* vlens)
        {
            for (int i = 0; i < count; i++) { kb[i] = Keys.Int64BE(keys[keyIndex + i]); kl[i] = (UIntPtr)8; }
            return ManyRaw(count, (byte*)kb, kl, values, vlens);
        }

        // ------------------------------------------------------------ zero-copy range batches

        /// <summary>Zero-copy range batch in one crossing, with no cursor to open or
        /// close: writes up to <paramref name="max"/> rows of the range lo..hi, in key
        /// order (descending with <paramref name="reverse"/>), as pointer + length into
        /// the caller's arrays (each of at least max elements), and returns how many.
        /// Fewer than max means the range has no more rows (0: none at all). To read
        /// on after a full batch, call again with the last key read as an exclusive
        /// bound (lo ascending, hi descending). <paramref name="values"/> and
        /// <paramref name="valueLengths"/> may both be null to read keys only.
        /// Bound kinds as in <see cref="Bound"/>; a bound's pointer and length are
        /// ignored when its kind is Unbounded, and read only during the call.
        /// Returned pointers: uncompressed tables, valid until the database is
        /// disposed; compressed tables, they live in this thread's buffer, valid until
        /// this thread's next TryGet, GetMany, TryGetAt, index get, ReadRange or
        /// Range/Prefix step (so copy a key of a compressed table before passing it
        /// back as a bound). Nothing keeps the database open while they are read: do
        /// not dispose it meanwhile. Nothing guards them either: reading a row whose
        /// page the file lost (truncated while open) kills the process with SIGBUS;
        /// Range reports that as DryDBException (Status.Corrupt). Do not write
        /// through them.</summary>
        /// <exception cref="ArgumentOutOfRangeException">max &lt; 0 or above 2^24, or a bad bound kind.</exception>
        /// <exception cref="ArgumentException">a negative bound length, a null bound pointer with a
        /// non-zero length, or only one of values/valueLengths given.</exception>
        /// <exception cref="ArgumentNullException">keys or keyLengths null while max &gt; 0.</exception>
        public int ReadRange(byte* lo, int loLength, BoundKind loKind, byte* hi, int hiLength, BoundKind hiKind,
                             bool reverse, int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            CheckRawBound(lo, loLength, loKind, "lo");
            CheckRawBound(hi, hiLength, hiKind, "hi");
            CheckBatch(max, keys, keyLengths, values, valueLengths);
            if (loKind == BoundKind.Unbounded) { lo = null; loLength = 0; }
            if (hiKind == BoundKind.Unbounded) { hi = null; hiLength = 0; }
            return RangeCore(lo, loLength, (int)loKind, hi, hiLength, (int)hiKind, reverse, max, keys, keyLengths, values, valueLengths);
        }

        /// <summary>Zero-copy range batch with <see cref="Bound"/> bounds; see
        /// <see cref="ReadRange(byte*, int, BoundKind, byte*, int, BoundKind, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.</summary>
        public int ReadRange(Bound lo, Bound hi, bool reverse, int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            Resolve(lo, hi, out lo, out hi);
            CheckBatch(max, keys, keyLengths, values, valueLengths);
            fixed (byte* l = lo.Key) fixed (byte* h = hi.Key)
                return RangeCore(l, lo.Key == null ? 0 : lo.Key.Length, (int)lo.Kind, h, hi.Key == null ? 0 : hi.Key.Length, (int)hi.Kind,
                                 reverse, max, keys, keyLengths, values, valueLengths);
        }

        /// <summary>Zero-copy range batch of an int64 table, lo &lt;= key &lt; hi
        /// (half-open, as every two-key range), without allocating; see
        /// <see cref="ReadRange(byte*, int, BoundKind, byte*, int, BoundKind, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.
        /// To read on after a full ascending batch, call again with lo =
        /// Keys.ReadInt64(keys[n - 1]) + 1 (descending: hi = that key).</summary>
        public int ReadRange(long lo, long hi, bool reverse, int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (kind != KeyKind.Int64) Kind(KeyKind.Int64);
            CheckBatch(max, keys, keyLengths, values, valueLengths);
            ulong l = Keys.Int64BE(lo), h = Keys.Int64BE(hi);
            return RangeCore((byte*)&l, 8, Native.INCLUSIVE, (byte*)&h, 8, Native.EXCLUSIVE, reverse, max, keys, keyLengths, values, valueLengths);
        }

        /// <summary>Zero-copy range batch of a uint64 table, lo &lt;= key &lt; hi,
        /// without allocating; see <see cref="ReadRange(long, long, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.</summary>
        public int ReadRange(ulong lo, ulong hi, bool reverse, int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (kind != KeyKind.UInt64) Kind(KeyKind.UInt64);
            CheckBatch(max, keys, keyLengths, values, valueLengths);
            ulong l = Keys.UInt64BE(lo), h = Keys.UInt64BE(hi);
            return RangeCore((byte*)&l, 8, Native.INCLUSIVE, (byte*)&h, 8, Native.EXCLUSIVE, reverse, max, keys, keyLengths, values, valueLengths);
        }

        /// <summary>Zero-copy range batch into managed arrays (no unsafe code needed
        /// to call it): up to keys.Length rows; keys[i] (an address, read with
        /// Marshal.Copy or, on .NET, <c>new ReadOnlySpan&lt;byte&gt;((void*)keys[i], (int)keyLengths[i])</c>)
        /// and keyLengths[i], and values[i], valueLengths[i] unless both are null.
        /// Every array given holds at least keys.Length elements. Pointer lifetimes as in
        /// <see cref="ReadRange(byte*, int, BoundKind, byte*, int, BoundKind, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.</summary>
        public int ReadRange(Bound lo, Bound hi, bool reverse, IntPtr[] keys, UIntPtr[] keyLengths, IntPtr[] values, UIntPtr[] valueLengths)
        {
            if (keys == null) throw new ArgumentNullException("keys");
            if (keyLengths == null) throw new ArgumentNullException("keyLengths");
            int max = keys.Length;
            if (keyLengths.Length < max) throw new ArgumentException("keyLengths is shorter than keys", "keyLengths");
            if ((values == null) != (valueLengths == null)) throw new ArgumentException("values and valueLengths must both be given or both be null", "values");
            if (values != null && (values.Length < max || valueLengths.Length < max)) throw new ArgumentException("values or valueLengths is shorter than keys", "values");
            if (max == 0) { lo.Validate("lo"); hi.Validate("hi"); db.ThrowIfDisposed(); return 0; }
            fixed (IntPtr* k = keys) fixed (UIntPtr* kl = keyLengths) fixed (IntPtr* v = values) fixed (UIntPtr* vl = valueLengths)
                return ReadRange(lo, hi, reverse, max, (byte**)k, kl, (byte**)v, vl);
        }

#if NETCOREAPP || NETSTANDARD2_1
        /// <summary>Zero-copy range batch with span bounds and span outputs: up to
        /// keys.Length rows; read row i as <c>new ReadOnlySpan&lt;byte&gt;((void*)keys[i], (int)keyLengths[i])</c>.
        /// values and valueLengths both empty: keys only; otherwise each holds at
        /// least keys.Length elements. A bound span is ignored when its kind is
        /// Unbounded (an empty span with another kind is the empty key). Pointer
        /// lifetimes as in
        /// <see cref="ReadRange(byte*, int, BoundKind, byte*, int, BoundKind, bool, int, byte**, UIntPtr*, byte**, UIntPtr*)"/>.</summary>
        public int ReadRange(ReadOnlySpan<byte> lo, BoundKind loKind, ReadOnlySpan<byte> hi, BoundKind hiKind, bool reverse,
                             Span<IntPtr> keys, Span<UIntPtr> keyLengths, Span<IntPtr> values, Span<UIntPtr> valueLengths)
        {
            int max = keys.Length;
            if (keyLengths.Length < max) throw new ArgumentException("keyLengths is shorter than keys", "keyLengths");
            bool withValues = values.Length != 0 || valueLengths.Length != 0;
            if (withValues && (values.Length < max || valueLengths.Length < max)) throw new ArgumentException("values or valueLengths is shorter than keys", "values");
            CheckRawBound(null, 0, loKind, "lo"); CheckRawBound(null, 0, hiKind, "hi");
            if (max == 0) { db.ThrowIfDisposed(); return 0; }
            fixed (byte* l = lo) fixed (byte* h = hi)
            fixed (IntPtr* k = keys) fixed (UIntPtr* kl = keyLengths) fixed (IntPtr* v = values) fixed (UIntPtr* vl = valueLengths)
                return RangeCore(loKind == BoundKind.Unbounded ? null : l, loKind == BoundKind.Unbounded ? 0 : lo.Length, (int)loKind,
                                 hiKind == BoundKind.Unbounded ? null : h, hiKind == BoundKind.Unbounded ? 0 : hi.Length, (int)hiKind,
                                 reverse, max, (byte**)k, kl, withValues ? (byte**)v : null, withValues ? vl : null);
        }
#endif

        static void CheckRawBound(byte* key, int length, BoundKind kind, string name)
        {
            if (kind == BoundKind.Unbounded) return;
            if (kind != BoundKind.Inclusive && kind != BoundKind.Exclusive) throw new ArgumentOutOfRangeException(name + "Kind", "bad bound kind " + (int)kind);
            if (length < 0 || (key == null && length != 0)) throw new ArgumentException("bad " + name + " pointer/length", name + "Length");
        }

        static void CheckBatch(int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (max < 0 || max > Native.MaxBatch) throw new ArgumentOutOfRangeException("max", "max must be within [0, 2^24]");
            if (max > 0 && (keys == null || keyLengths == null)) throw new ArgumentNullException("keys");
            if ((values == null) != (valueLengths == null)) throw new ArgumentException("values and valueLengths must both be given or both be null", "values");
        }

        // One drydb_range crossing; arguments already checked.
        int RangeCore(byte* lo, int loLength, int loKind, byte* hi, int hiLength, int hiKind, bool reverse, int max,
                      byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (max == 0) { db.ThrowIfDisposed(); return 0; }
            UIntPtr n; int rc;
            db.Enter();
            try
            {
                rc = Native.drydb_range(th, lo, (UIntPtr)loLength, loKind, hi, (UIntPtr)hiLength, hiKind,
                                        reverse ? Native.REVERSE : 0u, (UIntPtr)max, keys, keyLengths, values, valueLengths, &n);
            }
            finally { db.Leave(); }
            if (rc != Native.OK) throw Native.Error(rc);
            return (int)(ulong)n;
        }
    }
}
