// Cursor.cs - zero-copy cursor over a table or an index range.
using System;
using System.Runtime.InteropServices;
using System.Threading;

namespace DryDB
{
    /// <summary>Owns a drydb_cursor, the buffers the library copies its entries
    /// into (the memory the cursor exposes: never the mapped file) and a
    /// reference on its database, so the native cursor outlives no database.</summary>
    internal sealed unsafe class CursorHandle : SafeHandle
    {
        internal DatabaseHandle Db;
        internal IntPtr Batch; // unmanaged pointer arrays of the read-ahead batch
        internal CopyBuffers Data; // the entries: keys in column 0, values in 2

        internal CursorHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        internal IntPtr Raw { get { return handle; } }
        internal void Set(IntPtr h) { SetHandle(h); }

        protected override bool ReleaseHandle()
        {
            Native.drydb_cursor_close(handle); // DRYDB_OK, or CLOSED if the database went first
            if (Batch != IntPtr.Zero) { Marshal.FreeHGlobal(Batch); Batch = IntPtr.Zero; }
            if (Data != null) { Data.Free(); Data = null; }
            if (Db != null) Db.DangerousRelease();
            return true;
        }
    }

    /// <summary>A cursor over a table (or an index) range. It starts
    /// unpositioned: <see cref="Next"/> goes to the first entry, <see cref="Prev"/>
    /// to the last. The current key and value are available without another
    /// copy (<see cref="KeyPointer"/>/<see cref="KeyLength"/>, and
    /// <c>ReadOnlySpan&lt;byte&gt;</c> on .NET), valid until the cursor moves or
    /// is disposed: they point into the cursor's own buffers, which the library
    /// fills inside its calls, never into the mapped file, so a file truncated
    /// underneath gives DryDBException (Status.Corrupt), never a crash. Table
    /// cursors read ahead in batches, so a forward walk costs about one crossing
    /// per 64 rows. A cursor belongs to one thread at a time; using it from two
    /// threads at once throws InvalidOperationException.</summary>
    public sealed unsafe class Cursor : IDisposable
    {
        const int MaxBatch = 64;
        const int Unpositioned = 0, OnEntry = 1, AtEnd = 2;

        readonly Database db;
        readonly CursorHandle h;
        readonly bool isIndex;
        int state, busy;
        byte* key, val;
        int klen, vlen;
        // read-ahead (table cursors): entries [0, bn) valid, current = bi; the
        // native cursor is past the batch.
        int bn, bi, nextBatch = 8;
        byte** bk; byte** bv; UIntPtr* bkl; UIntPtr* bvl;

        Cursor(Database db, CursorHandle h, bool isIndex)
        {
            this.db = db; this.h = h; this.isIndex = isIndex;
            if (!isIndex)
            {
                byte* m = (byte*)h.Batch;
                bk = (byte**)m; bv = (byte**)(m + 8 * MaxBatch);
                bkl = (UIntPtr*)(m + 16 * MaxBatch); bvl = (UIntPtr*)(m + 24 * MaxBatch);
            }
        }

        internal static Cursor Create(Database db, bool isIndex, Func<IntPtr> open)
        {
            var h = new CursorHandle();
            bool added = false;
            try
            {
                db.AddCursorRef(ref added);
                if (!isIndex) h.Batch = Marshal.AllocHGlobal(32 * MaxBatch);
                h.Data = new CopyBuffers();
                h.Data.Want(true, false, true);
                IntPtr raw = open();
                h.Db = db.Handle; // the reference taken above now belongs to the cursor
                h.Set(raw);
                added = false;
                return new Cursor(db, h, isIndex);
            }
            finally
            {
                if (added)
                {
                    if (h.Batch != IntPtr.Zero) { Marshal.FreeHGlobal(h.Batch); h.Batch = IntPtr.Zero; }
                    if (h.Data != null) { h.Data.Free(); h.Data = null; }
                    db.Handle.DangerousRelease();
                }
            }
        }

        int disposed;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref disposed, 1) == 0) h.Dispose();
        }

        public bool IsDisposed { get { return Volatile.Read(ref disposed) != 0; } }

        void Enter()
        {
            if (IsDisposed) throw new ObjectDisposedException("Cursor");
            if (db.IsDisposed) throw new ObjectDisposedException("Database");
            if (Interlocked.Exchange(ref busy, 1) != 0)
                throw new InvalidOperationException("drydb: a cursor was used from two threads at once");
        }
        void Exit() { Volatile.Write(ref busy, 0); }

        /// <summary>True when the cursor is on an entry.</summary>
        public bool IsValid { get { return state == OnEntry; } }

        // ------------------------------------------------------------ moves

        const int OpFirst = 0, OpLast = 1, OpNext = 2, OpPrev = 3, OpSeek = 4, OpSeekExact = 5, OpSeekRow = 6;

        /// <summary>Moves to the next entry (the first one on a fresh cursor);
        /// false when it runs off the range (the cursor is then at end).</summary>
        public bool Next()
        {
            Enter();
            try
            {
                if (isIndex) return Move(OpNext, null, 0, 0);
                if (bn > 0)
                {
                    if (bi + 1 < bn) { bi++; FromBatch(); return true; }
                    return Fill(false);
                }
                if (state == AtEnd) return false;
                return Fill(state == OnEntry);
            }
            finally { Exit(); }
        }

        /// <summary>Zero-copy batch step of a table cursor: moves forward over up to
        /// <paramref name="max"/> entries after the current one (from the first on a
        /// fresh cursor) and writes their keys and values as pointer + length into
        /// the caller's arrays (each of at least <paramref name="max"/> elements).
        /// Returns how many (possibly fewer than max with more to come; 0 when none
        /// is left, the cursor is then at end). The cursor ends on the last entry
        /// returned, so Key/Value/Next/Prev carry on from there. The pointers are
        /// valid until the cursor moves again or is disposed. One crossing per call,
        /// whatever max (up to the range's end); index cursors are not supported.</summary>
        public int NextBatch(int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            if (max < 0) throw new ArgumentOutOfRangeException("max");
            if (max > 0 && (keys == null || keyLengths == null)) throw new ArgumentNullException("keys");
            if (max > 0 && (values == null || valueLengths == null)) throw new ArgumentNullException("values");
            if (isIndex) throw new InvalidOperationException("NextBatch is for table cursors; use Next on index cursors");
            Enter();
            try
            {
                if (max == 0) return 0;
                int got = 0;
                if (bn > 0)
                {
                    // Read-ahead left from Next(): hand it out first. No native call in
                    // the same step: a native move would end the lifetime of these
                    // pointers on compressed tables.
                    if (bi + 1 < bn)
                    {
                        while (got < max && bi + 1 < bn)
                        {
                            bi++;
                            keys[got] = bk[bi]; keyLengths[got] = bkl[bi];
                            values[got] = bv[bi]; valueLengths[got] = bvl[bi];
                            got++;
                        }
                        FromBatch();
                        return got;
                    }
                    got = NativeBatch(max, false, keys, keyLengths, values, valueLengths);
                }
                else if (state == AtEnd) return 0;
                else got = NativeBatch(max, state == OnEntry, keys, keyLengths, values, valueLengths);
                if (got == 0) { bn = 0; state = AtEnd; Clear(); return 0; }
                // The last entry returned becomes the current one; the native cursor
                // is past it, as after a read-ahead.
                bk[0] = keys[got - 1]; bkl[0] = keyLengths[got - 1];
                bv[0] = values[got - 1]; bvl[0] = valueLengths[got - 1];
                bn = 1; bi = 0;
                FromBatch();
                state = OnEntry;
                return got;
            }
            finally { Exit(); }
        }

        // Entries into the caller's arrays (pointers into the cursor's buffers).
        // skipFirst: the native cursor is on the current entry, which the batch
        // starts with and which is dropped (shifted out).
        int NativeBatch(int max, bool skipFirst, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths)
        {
            for (;;)
            {
                bool full;
                if (skipFirst && max == 1)
                {
                    if (CopyBatch(2, bk, bkl, bv, bvl, out full) >= 2)
                    {
                        keys[0] = bk[1]; keyLengths[0] = bkl[1]; values[0] = bv[1]; valueLengths[0] = bvl[1];
                        return 1;
                    }
                }
                else
                {
                    int c = CopyBatch(Math.Min(max, CopyBuffers.Rows), keys, keyLengths, values, valueLengths, out full);
                    if (!skipFirst) return c;
                    if (c > 1)
                    {
                        for (int i = 1; i < c; i++)
                        {
                            keys[i - 1] = keys[i]; keyLengths[i - 1] = keyLengths[i];
                            values[i - 1] = values[i]; valueLengths[i - 1] = valueLengths[i];
                        }
                        return c - 1;
                    }
                }
                // Only the current entry came back: the end, unless the buffers
                // stopped the batch after it (the native cursor is then on the next).
                if (!full) return 0;
                skipFirst = false;
            }
        }

        // One drydb__copy_cursor_batch of up to max (<= CopyBuffers.Rows) entries
        // into the cursor's buffers, grown when not even one fits; their pointers
        // and lengths into the arrays given. Returns how many (0: none left). full:
        // the buffers filled first; the native cursor is on the entry after them
        // (as after a whole batch).
        int CopyBatch(int max, byte** keys, UIntPtr* keyLengths, byte** values, UIntPtr* valueLengths, out bool full)
        {
            var d = h.Data;
            UIntPtr n;
            int rc;
            while ((rc = Native.drydb__copy_cursor_batch(h.Raw, 0, (UIntPtr)max, d.Cols, &n)) == Native.FULL && (ulong)n == 0)
                d.GrowFor(0);
            full = rc == Native.FULL;
            if (rc == Native.NOTFOUND) return 0;
            if (rc != Native.OK && !full) { bn = 0; state = AtEnd; Clear(); throw Native.Error(rc); }
            int c = (int)(ulong)n;
            NativeCol* cols = d.Cols;
            byte* k = cols[0].buf, v = cols[2].buf;
            UIntPtr* kls = cols[0].lens, vls = cols[2].lens;
            for (int i = 0; i < c; i++)
            {
                UIntPtr kl = kls[i], vl = vls[i];
                keys[i] = k; keyLengths[i] = kl; values[i] = v; valueLengths[i] = vl;
                k += (ulong)kl; v += (ulong)vl;
            }
            return c;
        }

        /// <summary>Moves to the previous entry (the last one on a fresh cursor).</summary>
        public bool Prev()
        {
            Enter();
            try
            {
                if (bn > 0)
                {
                    if (bi > 0) { bi--; FromBatch(); return true; }
                    // Put the native cursor back on the batch's first entry, then step back.
                    var k = Native.Copy(bk[0], bkl[0]);
                    bn = 0;
                    fixed (byte* kp = k)
                        if (!Move(OpSeekExact, kp, k.Length, 0))
                            throw new DryDBException(Status.Internal, "drydb: cursor lost its position");
                }
                return Move(OpPrev, null, 0, 0);
            }
            finally { Exit(); }
        }

        public bool First() { return Op(OpFirst, null, 0); }
        public bool Last() { return Op(OpLast, null, 0); }
        /// <summary>Positions on the first key &gt;= <paramref name="key"/> within the bounds.</summary>
        public bool Seek(byte[] key) { if (key == null) throw new ArgumentNullException("key"); fixed (byte* k = key) return Op(OpSeek, k, key.Length); }
        /// <summary>Seek with a key of any type (<see cref="DryDB.Key"/>), encoded for
        /// the cursor's table or index.</summary>
        public bool Seek(Key key) { return Seek(Encode(key)); }
        /// <summary>SeekExact with a key of any type, encoded for the cursor's table or index.</summary>
        public bool SeekExact(Key key) { return SeekExact(Encode(key)); }

        // Set by the table or index that opens the cursor: its key kind and encoder.
        internal KeyKind KeyKind = KeyKind.Int64;
        internal Func<Key, byte[]> Encoder;
        internal Func<byte[], object> Decoder; // the table's codec (Table.Decode)
        byte[] Encode(Key key) { return Encoder != null ? Encoder(key) : key.ToBytes(); }
        /// <summary>Positions on <paramref name="key"/> exactly (index cursors: the first entry with that index key).</summary>
        public bool SeekExact(byte[] key) { if (key == null) throw new ArgumentNullException("key"); fixed (byte* k = key) return Op(OpSeekExact, k, key.Length); }
        /// <summary>Seek with an int64 key (encoded as Keys.Int64, without allocating).</summary>
        public bool Seek(long key) { if (KeyKind != KeyKind.Int64) return Seek((Key)key); ulong k = Keys.Int64BE(key); return Op(OpSeek, (byte*)&k, 8); }
        /// <summary>SeekExact with an int64 key (encoded as Keys.Int64, without allocating).</summary>
        public bool SeekExact(long key) { if (KeyKind != KeyKind.Int64) return SeekExact((Key)key); ulong k = Keys.Int64BE(key); return Op(OpSeekExact, (byte*)&k, 8); }
        /// <summary>Positions on row n of the table (whole-table numbering); false if outside the bounds.</summary>
        public bool SeekRow(long n)
        {
            if (n < 0) throw new ArgumentOutOfRangeException("n");
            Enter();
            try { bn = 0; return Move(OpSeekRow, null, 0, (ulong)n); }
            finally { Exit(); }
        }

        bool Op(int op, byte* k, int kl)
        {
            Enter();
            try { bn = 0; return Move(op, k, kl, 0); }
            finally { Exit(); }
        }

        bool Move(int op, byte* k, int kl, ulong n)
        {
            IntPtr c = h.Raw;
            int rc;
            switch (op)
            {
                case OpFirst: rc = Native.drydb_cursor_first(c); break;
                case OpLast: rc = Native.drydb_cursor_last(c); break;
                case OpNext: rc = Native.drydb_cursor_next(c); break;
                case OpPrev: rc = Native.drydb_cursor_prev(c); break;
                case OpSeek: rc = Native.drydb_cursor_seek(c, k, (UIntPtr)kl); break;
                case OpSeekExact: rc = Native.drydb_cursor_seek_exact(c, k, (UIntPtr)kl); break;
                default: rc = Native.drydb_cursor_seek_row(c, n); break;
            }
            if (rc == Native.NOTFOUND) { state = AtEnd; Clear(); return false; }
            if (rc != Native.OK) { state = AtEnd; Clear(); throw Native.Error(rc); }
            var d = h.Data;
            while ((rc = Native.drydb__copy_cursor_get(c, d.Cols)) == Native.FULL) d.GrowFor(0);
            if (rc != Native.OK) { state = AtEnd; Clear(); throw Native.Error(rc); }
            NativeCol* cols = d.Cols;
            key = cols[0].buf; klen = (int)(ulong)cols[0].lens[0]; val = cols[2].buf; vlen = (int)(ulong)cols[2].lens[0];
            state = OnEntry;
            return true;
        }

        // Reads a batch from the native position; skipFirst when the native
        // cursor is on the current entry (already seen).
        bool Fill(bool skipFirst)
        {
            int max = nextBatch;
            if (nextBatch < MaxBatch) nextBatch *= 2;
            for (;;)
            {
                bool full;
                int c = CopyBatch(max, bk, bkl, bv, bvl, out full);
                bn = 0;
                int start = skipFirst ? 1 : 0;
                if (c > start)
                {
                    bn = c; bi = start;
                    FromBatch();
                    state = OnEntry;
                    return true;
                }
                // only the current entry, and the buffers stopped the batch after it
                if (!full) { state = AtEnd; Clear(); return false; }
                skipFirst = false;
            }
        }

        void FromBatch()
        {
            key = bk[bi]; klen = (int)(ulong)bkl[bi];
            val = bv[bi]; vlen = (int)(ulong)bvl[bi];
        }

        void Clear() { key = val = null; klen = vlen = 0; }

        // ------------------------------------------------------------ current entry

        void On()
        {
            if (IsDisposed) throw new ObjectDisposedException("Cursor");
            if (db.IsDisposed) throw new ObjectDisposedException("Database");
            if (state != OnEntry) throw new InvalidOperationException("the cursor is not on an entry");
        }

        /// <summary>Pointer to the current key (index cursors: the index key);
        /// valid until the cursor moves or is disposed. Do not write through it.</summary>
        public byte* KeyPointer { get { On(); return key; } }
        public int KeyLength { get { On(); return klen; } }
        /// <summary>Pointer to the current value; valid until the cursor moves or is disposed.</summary>
        public byte* ValuePointer { get { On(); return val; } }
        public int ValueLength { get { On(); return vlen; } }

        /// <summary>Copy of the current key.</summary>
        public byte[] Key { get { On(); return Copy(key, klen); } }
        /// <summary>Copy of the current value.</summary>
        public byte[] Value { get { On(); return Copy(val, vlen); } }
        /// <summary>The current value decoded by the table's codec, as
        /// <see cref="Table.GetDecoded"/> (raw values: a copy as byte[]).</summary>
        public object DecodedValue { get { var v = Value; return Decoder != null ? Decoder(v) : v; } }

        /// <summary>Index cursors: copy of the current entry's primary key.</summary>
        public byte[] PrimaryKey
        {
            get
            {
                if (!isIndex) throw new InvalidOperationException("PrimaryKey is for index cursors; use Key");
                Enter();
                try
                {
                    if (state != OnEntry) throw new InvalidOperationException("the cursor is not on an entry");
                    var cb = CopyBuffers.Current;
                    cb.Want(false, true, false);
                    int rc;
                    while ((rc = Native.drydb__copy_cursor_get(h.Raw, cb.Cols)) == Native.FULL) cb.GrowFor(0);
                    Native.Check(rc);
                    var r = Native.Copy(cb.Buf(1), cb.Cols[1].lens[0]);
                    cb.Trim();
                    return r;
                }
                finally { Exit(); }
            }
        }

        /// <summary>The current key decoded as int64.</summary>
        public long KeyInt64 { get { On(); if (klen != 8) throw new InvalidOperationException("key is not 8 bytes"); return Keys.ReadInt64(key); } }

        static byte[] Copy(byte* p, int n) { return Native.Copy(p, n); }

#if NETCOREAPP || NETSTANDARD2_1
        /// <summary>The current key without copying; valid until the cursor moves.</summary>
        public ReadOnlySpan<byte> KeySpan { get { On(); return new ReadOnlySpan<byte>(key, klen); } }
        /// <summary>The current value without copying; valid until the cursor moves.</summary>
        public ReadOnlySpan<byte> ValueSpan { get { On(); return new ReadOnlySpan<byte>(val, vlen); } }
#endif
    }
}
