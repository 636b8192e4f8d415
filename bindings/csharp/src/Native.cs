// Native.cs - P/Invoke declarations of include/drydb.h (the contract).
//
// Every signature is blittable: handles are IntPtr (opaque values, never
// dereferenced), byte strings are byte* + UIntPtr (size_t), out-pointers are
// raw pointers. No marshaling happens on a call; conveniences live in the
// public classes.
using System;
using System.Runtime.InteropServices;
using System.Security;

namespace DryDB
{
    [StructLayout(LayoutKind.Sequential)]
    internal unsafe struct NativeDbInfo
    {
        public uint format_version;
        public uint page_size;
        public long file_size;
        public long created_unix_ns;
        public fixed byte build_id[16];
        public ulong table_count;
        public ulong map_addr;
        public ulong map_len;
        public fixed ulong reserved[2];
    }

    [StructLayout(LayoutKind.Sequential)]
    internal unsafe struct NativeTableInfo
    {
        public int key_kind;
        public uint nparts;
        public fixed byte parts[16];
        public ulong rows;
        public uint index_count;
        public int compression;
        public int level;
        public uint flags;
        public fixed ulong reserved[4];
    }

    [StructLayout(LayoutKind.Sequential)]
    internal unsafe struct NativeIndexInfo
    {
        public int key_kind;
        public uint nparts;
        public fixed byte parts[16];
        public ulong entries;
        public uint unique;
        public uint reserved0;
        public fixed ulong reserved[4];
    }

    [StructLayout(LayoutKind.Sequential)]
    internal unsafe struct NativeCacheStats
    {
        public ulong hits;
        public ulong misses;
        public ulong evictions;
        public ulong bytes;
        public fixed ulong reserved[4];
    }

    [SuppressUnmanagedCodeSecurity]
    internal static unsafe class Native
    {
        // Mono maps "drydb" with DryDB.dll.config; .NET probes libdrydb.so
        // (runtimes/<rid>/native/ in a NuGet package).
        internal const string Lib = "drydb";
        internal const int MajorVersion = 0;

        internal const int OK = 0, NOTFOUND = 1, INVALID = 2, CLOSED = 3, BADHANDLE = 4;
        // drydb_bindings.h's DRYDB__FULL: a copy-out call's buffer could not
        // hold the next row, whose lengths it reports
        internal const int FULL = -2;
        internal const int UNBOUNDED = 0, INCLUSIVE = 1, EXCLUSIVE = 2;
        internal const uint REVERSE = 1;
        // drydb_get_many's n and drydb_range's max (DRYDB__MAX_BATCH)
        internal const int MaxBatch = 1 << 24;
        internal const int MaxParts = 16;
        // drydb_builder_table's flags, drydb_table_info.flags
        internal const uint Dictionary = 0x1, HashOn = 0x2, NoHash = 0x4;

        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern void drydb_version(int* major, int* minor, int* patch);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern IntPtr drydb_version_string();
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern IntPtr drydb_strerror(int code);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern IntPtr drydb_errmsg();

        // database
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_open(byte* path, uint flags, long cache_bytes, IntPtr* db);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_open_memory(IntPtr data, UIntPtr len, uint flags, long cache_bytes, IntPtr* db);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_close(IntPtr db);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_verify(IntPtr db);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_info(IntPtr db, NativeDbInfo* info);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_meta_get(IntPtr db, byte* key, UIntPtr klen, byte** val, UIntPtr* vlen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_table_count(IntPtr db, UIntPtr* n);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_table_name(IntPtr db, UIntPtr i, byte** name);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_table_index_name(IntPtr tbl, UIntPtr i, byte** name);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cache_stats(IntPtr db, NativeCacheStats* stats);

        // tables
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_table_open(IntPtr db, byte* name, IntPtr* tbl);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_table_info(IntPtr tbl, NativeTableInfo* info);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_table_codec(IntPtr tbl, IntPtr* name);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_table_codec(IntPtr tb, byte* codec);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_get(IntPtr tbl, byte* key, UIntPtr klen, byte** val, UIntPtr* vlen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_get_many(IntPtr tbl, UIntPtr n, byte* keys, UIntPtr* klens, byte** vals, UIntPtr* vlens, byte* found);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_count(IntPtr tbl, byte* lo, UIntPtr lolen, int lokind, byte* hi, UIntPtr hilen, int hikind, ulong* n);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_range(IntPtr tbl, byte* lo, UIntPtr lolen, int lokind, byte* hi, UIntPtr hilen, int hikind, uint flags, UIntPtr max, byte** keys, UIntPtr* klens, byte** vals, UIntPtr* vlens, UIntPtr* n);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_rank(IntPtr tbl, byte* key, UIntPtr klen, ulong* n);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_at(IntPtr tbl, ulong n, byte** key, UIntPtr* klen, byte** val, UIntPtr* vlen);

        // cursors
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_open(IntPtr tbl, byte* lo, UIntPtr lolen, int lokind, byte* hi, UIntPtr hilen, int hikind, IntPtr* cur);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_open_prefix(IntPtr tbl, byte* p, UIntPtr plen, IntPtr* cur);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_first(IntPtr cur);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_last(IntPtr cur);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_next(IntPtr cur);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_prev(IntPtr cur);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_seek(IntPtr cur, byte* k, UIntPtr klen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_seek_exact(IntPtr cur, byte* k, UIntPtr klen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_seek_row(IntPtr cur, ulong n);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_get(IntPtr cur, byte** key, UIntPtr* klen, byte** val, UIntPtr* vlen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_primary_key(IntPtr cur, byte** pk, UIntPtr* pklen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_next_batch(IntPtr cur, int reverse, UIntPtr max, byte** keys, UIntPtr* klens, byte** vals, UIntPtr* vlens, UIntPtr* n);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_cursor_close(IntPtr cur);

        // indexes
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_index_open(IntPtr tbl, byte* name, IntPtr* ix);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_index_info(IntPtr ix, NativeIndexInfo* info);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_index_get(IntPtr ix, byte* ikey, UIntPtr iklen, byte** pk, UIntPtr* pklen, byte** val, UIntPtr* vlen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_index_count(IntPtr ix, byte* lo, UIntPtr lolen, int lokind, byte* hi, UIntPtr hilen, int hikind, ulong* n);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_index_cursor_open(IntPtr ix, byte* lo, UIntPtr lolen, int lokind, byte* hi, UIntPtr hilen, int hikind, IntPtr* cur);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_index_cursor_open_prefix(IntPtr ix, byte* p, UIntPtr plen, IntPtr* cur);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_index_cursor_next_batch(IntPtr cur, int reverse, UIntPtr max, byte** ikeys, UIntPtr* iklens, byte** pks, UIntPtr* pklens, byte** vals, UIntPtr* vlens, UIntPtr* n);

        // builder
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_new(uint page_size, long memory_budget, IntPtr* b);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_set_meta(IntPtr b, byte* key, UIntPtr klen, byte* val, UIntPtr vlen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_table(IntPtr b, byte* name, int key_kind, byte* parts, UIntPtr nparts, int compression, int level, uint flags, IntPtr* tb);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_index(IntPtr tb, byte* name, int unique, int key_kind, byte* parts, UIntPtr nparts, IntPtr* ib);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_append(IntPtr tb, byte* key, UIntPtr klen, byte* val, UIntPtr vlen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_append_many(IntPtr tb, UIntPtr n, byte* keys, UIntPtr* klens, byte* vals, UIntPtr* vlens);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_index_add(IntPtr ib, byte* ikey, UIntPtr iklen, byte* pk, UIntPtr pklen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_index_add_many(IntPtr ib, UIntPtr n, byte* ikeys, UIntPtr* iklens, byte* pks, UIntPtr* pklens);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_build_file(IntPtr b, byte* path);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_build_memory(IntPtr b, byte** data, UIntPtr* len);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_builder_free(IntPtr b);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern void drydb_free(IntPtr p);

        // the bindings' copy-out reads (capi/drydb_bindings.h; see CopyOut.cs)
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb__copy_get(IntPtr tbl, byte* key, UIntPtr klen, NativeCol* val);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb__copy_get_many(IntPtr tbl, UIntPtr n, byte* keys, UIntPtr* klens, NativeCol* vals, byte* found, UIntPtr* done);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb__copy_range(IntPtr tbl, byte* lo, UIntPtr lolen, int lokind, byte* hi, UIntPtr hilen, int hikind, uint flags, UIntPtr max, NativeCol* cols, UIntPtr* n);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb__copy_at(IntPtr tbl, ulong row, NativeCol* cols);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb__copy_index_get(IntPtr ix, byte* ikey, UIntPtr iklen, NativeCol* cols);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb__copy_cursor_get(IntPtr cur, NativeCol* cols);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb__copy_cursor_batch(IntPtr cur, int reverse, UIntPtr max, NativeCol* cols, UIntPtr* n);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb__copy_meta(IntPtr db, byte* key, UIntPtr klen, NativeCol* val);

        // knobs
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_set_memory_limit(long bytes, long* old);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb_set_gc_percent(int percent, int* old);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        internal static extern int drydb__warm_threads(int n);

        // ------------------------------------------------------------ helpers

        static volatile bool checkedVersion;

        // Refuses a library of another major version (once per process).
        internal static void EnsureLoaded()
        {
            if (checkedVersion) return;
            int major, minor, patch;
            try { drydb_version(&major, &minor, &patch); }
            catch (DllNotFoundException e) { throw new DllNotFoundException(MissingLibrary(), e); }
            catch (BadImageFormatException e) { throw new DllNotFoundException(MissingLibrary(), e); }
            if (major != MajorVersion)
                throw new DryDBException(Status.Invalid,
                    string.Format("drydb: library version {0}.{1}.{2} is not supported by this binding (major {3})", major, minor, patch, MajorVersion));
            // Mono stops the world with signals; a thread's first call into
            // Go blocks them while it takes one of the Go runtime's spare
            // threads (Ms), and when none is free both wait on each other
            // (capi/helpers.c). 64 spares cover the first calls of 64
            // threads; more threads than that are at the old risk.
            drydb__warm_threads(64);
            checkedVersion = true;
        }

        // What was searched for the native library and what to install, for the
        // bare DllNotFoundException the runtime gives (issue 18).
        internal static string MissingLibrary()
        {
            string file = Environment.OSVersion.Platform == PlatformID.Win32NT ? "drydb.dll"
                        : Environment.OSVersion.Platform == PlatformID.MacOSX ? "libdrydb.dylib" : "libdrydb.so";
            string here = System.IO.Path.GetDirectoryName(typeof(Native).Assembly.Location);
            var searched = new System.Collections.Generic.List<string>();
            searched.Add(System.IO.Path.Combine(here ?? ".", file) + " (next to DryDB.dll; Mono maps \"drydb\" to it with DryDB.dll.config)");
            searched.Add(System.IO.Path.Combine(here ?? ".", "runtimes", "<rid>", "native", file) + " (.NET, from the NuGet package)");
            foreach (var v in new[] { "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "PATH" })
            {
                var p = Environment.GetEnvironmentVariable(v);
                if (!string.IsNullOrEmpty(p) && (v != "PATH" || file == "drydb.dll")) searched.Add(v + "=" + p);
            }
            searched.Add("the system library path (ldconfig)");
            return string.Format(
                "drydb: the native library {0} (libdrydb {1}.x) was not found or could not be loaded. Searched: {2}. " +
                "Install it: the DryDB NuGet package carries it for linux-x64, linux-arm64 and win-x64; from source, " +
                "`make lib` builds build/{0}: copy it next to DryDB.dll, or `make install` it, or set LD_LIBRARY_PATH. " +
                "It needs glibc 2.34 or later on Linux.",
                file, MajorVersion, string.Join("; ", searched));
        }

        // NUL-terminated UTF-8 for const char* arguments.
        internal static byte[] CString(string s, string paramName)
        {
            if (s == null) throw new ArgumentNullException(paramName);
            if (s.IndexOf('\0') >= 0) throw new ArgumentException("string contains a NUL character", paramName);
            int n = System.Text.Encoding.UTF8.GetByteCount(s);
            var b = new byte[n + 1];
            System.Text.Encoding.UTF8.GetBytes(s, 0, s.Length, b, 0);
            return b;
        }

        internal static string FromCString(IntPtr p)
        {
            if (p == IntPtr.Zero) return "";
            byte* b = (byte*)p;
            int n = 0;
            while (b[n] != 0) n++;
            return System.Text.Encoding.UTF8.GetString(b, n);
        }

        internal static byte[] Copy(byte* p, UIntPtr len)
        {
            ulong n = (ulong)len;
            if (n > int.MaxValue) throw new OverflowException("drydb: a value of " + n + " bytes does not fit a byte[]");
            // one call, not three: Mono 6.8 inlines neither Copy(byte*, int) nor CopyBytes
            var r = new byte[(int)n];
            if (n - 8 <= 8)
                fixed (byte* d = &r[0]) { *(ulong*)d = *(ulong*)p; *(ulong*)(d + n - 8) = *(ulong*)(p + n - 8); }
            else if (n != 0) fixed (byte* d = &r[0]) CopyBytes(p, d, (int)n);
            return r;
        }

        // Copies n bytes (no overlap). Short values, the common case, are copied
        // with 8-byte moves: Buffer.MemoryCopy costs ~10 ns of checks on Mono
        // 6.8 for a 13-byte value, Marshal.Copy ~25 ns.
        internal static void CopyBytes(byte* src, byte* dst, int n)
        {
            if (n > 64) { Buffer.MemoryCopy(src, dst, n, n); return; }
            while (n >= 8) { *(ulong*)dst = *(ulong*)src; src += 8; dst += 8; n -= 8; }
            if (n >= 4) { *(uint*)dst = *(uint*)src; src += 4; dst += 4; n -= 4; }
            while (n > 0) { *dst++ = *src++; n--; }
        }

        internal static Exception Error(int code)
        {
            // drydb_errmsg is per OS thread; a P/Invoke runs on the caller's thread.
            string detail = FromCString(drydb_errmsg());
            if (code == CLOSED)
                return new ObjectDisposedException("DryDB", string.IsNullOrEmpty(detail) ? "drydb: handle closed" : detail);
            return new DryDBException((Status)code, detail);
        }

        internal static byte[] Copy(byte* p, int n)
        {
            var r = new byte[n];
            if (n > 0) fixed (byte* d = r) CopyBytes(p, d, n);
            return r;
        }

        internal static void Check(int rc)
        {
            if (rc != OK) throw Error(rc);
        }
    }
}
