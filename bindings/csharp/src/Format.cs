// Format.cs - DryDB 1.4 output (docs/DRYDB14.md, "Writing 1.4 files"): the formats a
// DatabaseBuilder writes (BuilderOptions.Format) and FileFormat.Convert.
using System;
using System.Runtime.InteropServices;
using Lib = DryDB.Native; // (FileFormat.Native is the format name)

namespace DryDB
{
    /// <summary>The file formats drydb writes, and conversion between them.</summary>
    public static unsafe class FileFormat
    {
        /// <summary>drydb's own format (the default).</summary>
        public const string Native = "native";
        /// <summary>DryDB's storage format 1.4, which the C# DryDB reads. A builder
        /// writing it builds the native file first, then writes that as 1.4. Keys
        /// Int64, String, Bytes, Uuid and Ulid only (others, S2 and dictionaries are
        /// refused with DryDBException Status.Invalid naming the table or index);
        /// zstd on any table compresses the whole file; metadata is not stored.</summary>
        public const string DryDB14 = "drydb-1.4";

        /// <summary>Writes the database file <paramref name="src"/> (native or DryDB
        /// 1.4) to <paramref name="dst"/> in format <paramref name="to"/>, atomically
        /// (dst may be src): the same tables, rows and indexes, other bytes.
        /// pageSize 0: native keeps src's, 1.4 uses 4096 (1.4 takes 64 to 1048576).
        /// compression null keeps src's, else "none" or "zstd".</summary>
        public static void Convert(string src, string dst, string to, int pageSize = 0, string compression = null)
        {
            if (pageSize < 0) throw new ArgumentException("pageSize must be >= 0", "pageSize");
            var s = Lib.CString(src, "src");
            var d = Lib.CString(dst, "dst");
            var t = Lib.CString(to, "to");
            var c = compression == null ? null : Lib.CString(compression, "compression");
            Lib.EnsureLoaded();
            int rc;
            fixed (byte* ps = s, pd = d, pt = t, pc = c)
                rc = drydb_convert(ps, pd, pt, (uint)pageSize, pc);
            Lib.Check(rc);
        }

        // Sets a new builder's format (before its first table).
        internal static void Set(BuilderHandle h, string format)
        {
            var f = Lib.CString(format, "Format");
            int rc;
            fixed (byte* pf = f) rc = drydb_builder_set_format(h.Raw, pf);
            if (rc == Lib.INVALID) throw new ArgumentException(Lib.Error(rc).Message, "options");
            Lib.Check(rc);
        }

        [DllImport(Lib.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb_builder_set_format(IntPtr b, byte* format);
        [DllImport(Lib.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb_convert(byte* src, byte* dst, byte* to, uint page_size, byte* compression);
    }
}
