// CopyOut.cs - the buffers of the library's copy-out calls (capi/drydb_bindings.h).
//
// drydb.h's reads hand back pointers into the mapped file. Copying from them
// in managed code after the call is unsafe twice over: a Dispose on another
// thread may unmap the file in between (Database.Enter only delays the native
// close of this binding's own handle), and a file truncated underneath makes
// the copy fault in managed code, which kills the process (Mono aborts on a
// SIGSEGV/SIGBUS there). Every copying read of this binding therefore uses a
// copy-out call: the library copies the answer into these buffers inside the
// call, where a racing close is waited for and a fault becomes
// DryDBException (Status.Corrupt). Only the zero-copy members (ReadRange,
// GetMany into byte** arrays) hand out pointers into the file.
using System;
using System.Runtime.InteropServices;

namespace DryDB
{
    /// <summary>struct drydb__col: one field (key, primary key, value) of every
    /// row of a copy-out answer, one after another in buf, the lengths in lens.
    /// lens == null: the field is not wanted.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal unsafe struct NativeCol
    {
        public byte* buf;
        public UIntPtr cap;
        public UIntPtr* lens;
    }

    /// <summary>Three columns of up to <see cref="Rows"/> rows in unmanaged memory
    /// (stable addresses: a cursor hands them out as pointers). One per thread
    /// for the calls that copy into byte[] at once (<see cref="Current"/>, freed
    /// by the finalizer after the thread is gone), one per cursor (freed with
    /// it).</summary>
    internal sealed unsafe class CopyBuffers
    {
        internal const int Rows = 256;
        const int Start = 4096, Keep = 1 << 20;

        [ThreadStatic] static CopyBuffers current;
        internal static CopyBuffers Current { get { return current ?? (current = new CopyBuffers()); } }

        /// <summary>The three columns, to pass to a copy-out call.</summary>
        internal readonly NativeCol* Cols;
        readonly UIntPtr* lens;

        internal CopyBuffers()
        {
            Cols = (NativeCol*)Marshal.AllocHGlobal(3 * sizeof(NativeCol) + 3 * Rows * sizeof(UIntPtr));
            lens = (UIntPtr*)(Cols + 3);
            for (int i = 0; i < 3; i++)
            {
                Cols[i].buf = (byte*)Marshal.AllocHGlobal(Start);
                Cols[i].cap = (UIntPtr)Start;
                Cols[i].lens = lens + i * Rows;
            }
        }

        bool freed;

        ~CopyBuffers() { Release(); }

        /// <summary>Frees the memory (a cursor's, when it is released).</summary>
        internal void Free()
        {
            Release();
            GC.SuppressFinalize(this);
        }

        void Release()
        {
            if (freed) return;
            freed = true;
            for (int i = 0; i < 3; i++) Marshal.FreeHGlobal((IntPtr)Cols[i].buf);
            Marshal.FreeHGlobal((IntPtr)Cols);
        }

        /// <summary>Column i's bytes (its lengths: Cols[i].lens).</summary>
        internal byte* Buf(int i) { return Cols[i].buf; }

        /// <summary>Which columns the next call fills.</summary>
        internal void Want(bool a, bool b, bool c)
        {
            Cols[0].lens = a ? lens : null;
            Cols[1].lens = b ? lens + Rows : null;
            Cols[2].lens = c ? lens + 2 * Rows : null;
        }

        /// <summary>After Native.FULL with no row at r reported: every wanted column
        /// made to hold row r (the call reported its lengths there). Contents are not
        /// kept.</summary>
        internal void GrowFor(int r)
        {
            for (int i = 0; i < 3; i++)
            {
                if (Cols[i].lens == null) continue;
                ulong need = (ulong)Cols[i].lens[r], cap = (ulong)Cols[i].cap;
                if (need <= cap) continue;
                if (need > int.MaxValue) throw new OverflowException("drydb: a field of " + need + " bytes does not fit a byte[]");
                Set(i, (int)Math.Max(need, Math.Min(2 * cap, int.MaxValue)));
            }
        }

        /// <summary>Gives back what a very long field made a column grow to.</summary>
        internal void Trim()
        {
            for (int i = 0; i < 3; i++)
                if ((ulong)Cols[i].cap > Keep) Set(i, Start);
        }

        void Set(int i, int cap)
        {
            var p = (byte*)Marshal.AllocHGlobal(Math.Max(cap, 1));
            Marshal.FreeHGlobal((IntPtr)Cols[i].buf);
            Cols[i].buf = p;
            Cols[i].cap = (UIntPtr)cap;
        }
    }
}
