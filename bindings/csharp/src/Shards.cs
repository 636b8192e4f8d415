// Shards.cs - sharded databases (docs/FORMAT.md, "Sharded databases"): a
// manifest naming shard files, each an ordinary database holding one key
// range of every table. Database.Open opens a manifest as one database; this
// writes the manifest for shards built with DatabaseBuilder.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Security;

namespace DryDB
{
    public static unsafe class Shards
    {
        /// <summary>Writes the manifest at <paramref name="path"/> for range
        /// shards: file names relative to the manifest's directory, in key
        /// order (every key of a shard above every key of the shard before it,
        /// in each table). The library reads each shard's first and last keys
        /// and row counts; the manifest appears atomically. Shards out of order
        /// give Status.Corrupt, a missing one Status.IO.</summary>
        public static void WriteRangeManifest(string path, IList<string> shards)
        {
            Write(path, shards, false);
        }

        /// <summary>Writes the manifest at <paramref name="path"/> for hash
        /// shards: shard i holds, in every table, the keys whose hash slot
        /// (FNV-1a-64 of the encoded key mod the number of shards) is i.
        /// Hash tables serve gets, counts, ranks and ranges, not row numbers
        /// (At gives Status.Invalid). Shards out of slot order give
        /// Status.Invalid.</summary>
        public static void WriteHashManifest(string path, IList<string> shards)
        {
            Write(path, shards, true);
        }

        static void Write(string path, IList<string> shards, bool hash)
        {
            if (path == null) throw new ArgumentNullException("path");
            if (shards == null) throw new ArgumentNullException("shards");
            Native.EnsureLoaded();
            var p = Native.CString(path, "path");
            var names = new IntPtr[Math.Max(shards.Count, 1)];
            try
            {
                for (int i = 0; i < shards.Count; i++)
                {
                    var s = Native.CString(shards[i], "shards");
                    names[i] = Marshal.AllocHGlobal(s.Length);
                    Marshal.Copy(s, 0, names[i], s.Length);
                }
                int rc;
                fixed (byte* pp = p)
                fixed (IntPtr* np = names)
                    rc = hash ? drydb_write_hash_manifest(pp, np, (UIntPtr)shards.Count)
                              : drydb_write_range_manifest(pp, np, (UIntPtr)shards.Count);
                Native.Check(rc);
            }
            finally
            {
                foreach (var n in names) if (n != IntPtr.Zero) Marshal.FreeHGlobal(n);
            }
        }

        [SuppressUnmanagedCodeSecurity]
        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb_write_range_manifest(byte* path, IntPtr* shards, UIntPtr n);

        [SuppressUnmanagedCodeSecurity]
        [DllImport(Native.Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        static extern int drydb_write_hash_manifest(byte* path, IntPtr* shards, UIntPtr n);
    }
}
