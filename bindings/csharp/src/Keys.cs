// Keys.cs - key encodings, in C# (no call into the library): the byte strings
// the engine compares with memcmp (engine/keyenc; drydb.h's inline helpers).
using System;
using System.Collections.Generic;
using System.Text;

namespace DryDB
{
    /// <summary>Encoders and decoders of drydb's key byte layouts.</summary>
    public static unsafe class Keys
    {
        // ------------------------------------------------------------ int64/uint64/float64

        /// <summary>int64: big-endian with the sign bit flipped (negative &lt; positive).</summary>
        public static byte[] Int64(long v) { var b = new byte[8]; fixed (byte* p = b) PutInt64(v, p); return b; }
        public static byte[] UInt64(ulong v) { var b = new byte[8]; fixed (byte* p = b) PutUInt64(v, p); return b; }
        /// <summary>float64 in order-preserving form; -0 is encoded as +0; NaN is refused.</summary>
        public static byte[] Float64(double v) { var b = new byte[8]; fixed (byte* p = b) PutFloat64(v, p); return b; }

        public static void PutInt64(long v, byte* o) { PutUInt64((ulong)v ^ 0x8000000000000000UL, o); }
        public static void PutUInt64(ulong v, byte* o)
        {
            o[0] = (byte)(v >> 56); o[1] = (byte)(v >> 48); o[2] = (byte)(v >> 40); o[3] = (byte)(v >> 32);
            o[4] = (byte)(v >> 24); o[5] = (byte)(v >> 16); o[6] = (byte)(v >> 8); o[7] = (byte)v;
        }
        public static void PutFloat64(double v, byte* o)
        {
            if (double.IsNaN(v)) throw new ArgumentException("NaN is not a valid float64 key", "v");
            if (v == 0) v = 0; // -0 -> +0
            ulong u = (ulong)BitConverter.DoubleToInt64Bits(v);
            u = (u & 0x8000000000000000UL) != 0 ? ~u : u ^ 0x8000000000000000UL;
            PutUInt64(u, o);
        }

        // The 8-byte key as a ulong whose in-memory bytes are the encoding:
        // (byte*)&result is the key, with no buffer to fill byte by byte.
        internal static ulong UInt64BE(ulong v)
        {
            if (!BitConverter.IsLittleEndian) return v;
            return (v >> 56) | ((v >> 40) & 0xFF00UL) | ((v >> 24) & 0xFF0000UL) | ((v >> 8) & 0xFF000000UL) |
                   ((v << 8) & 0xFF00000000UL) | ((v << 24) & 0xFF0000000000UL) | ((v << 40) & 0xFF000000000000UL) | (v << 56);
        }
        internal static ulong Int64BE(long v) { return UInt64BE((ulong)v ^ 0x8000000000000000UL); }

        public static ulong ReadUInt64(byte* p)
        {
            return ((ulong)p[0] << 56) | ((ulong)p[1] << 48) | ((ulong)p[2] << 40) | ((ulong)p[3] << 32) |
                   ((ulong)p[4] << 24) | ((ulong)p[5] << 16) | ((ulong)p[6] << 8) | p[7];
        }
        public static long ReadInt64(byte* p) { return (long)(ReadUInt64(p) ^ 0x8000000000000000UL); }
        public static double ReadFloat64(byte* p)
        {
            ulong u = ReadUInt64(p);
            u = (u & 0x8000000000000000UL) != 0 ? u ^ 0x8000000000000000UL : ~u;
            return BitConverter.Int64BitsToDouble((long)u);
        }

        public static long ToInt64(byte[] key) { Need(key, 8); fixed (byte* p = key) return ReadInt64(p); }
        public static ulong ToUInt64(byte[] key) { Need(key, 8); fixed (byte* p = key) return ReadUInt64(p); }
        public static double ToFloat64(byte[] key) { Need(key, 8); fixed (byte* p = key) return ReadFloat64(p); }

        static void Need(byte[] key, int n)
        {
            if (key == null) throw new ArgumentNullException("key");
            if (key.Length != n) throw new ArgumentException(string.Format("key of {0} bytes, expected {1}", key.Length, n), "key");
        }

        // ------------------------------------------------------------ string

        static readonly UTF8Encoding StrictUtf8 = new UTF8Encoding(false, true);

        /// <summary>string: UTF-8 bytes (ill-formed strings, e.g. lone surrogates, are refused).</summary>
        public static byte[] String(string s)
        {
            if (s == null) throw new ArgumentNullException("s");
            try { return StrictUtf8.GetBytes(s); }
            catch (EncoderFallbackException e) { throw new ArgumentException("string is not valid UTF-16 (lone surrogate)", "s", e); }
        }
        public static string ToString(byte[] key)
        {
            if (key == null) throw new ArgumentNullException("key");
            return Encoding.UTF8.GetString(key);
        }

        // ------------------------------------------------------------ uuid / guid

        /// <summary>The 16 bytes of a Guid in RFC 4122 (network) order, as printed
        /// left to right. (Guid.ToByteArray stores the first three groups
        /// little-endian; this swaps them.)</summary>
        public static byte[] Uuid(Guid g)
        {
            var b = g.ToByteArray();
            Swap(b);
            return b;
        }
        public static Guid ToGuid(byte[] key)
        {
            Need(key, 16);
            var b = (byte[])key.Clone();
            Swap(b);
            return new Guid(b);
        }
        static void Swap(byte[] b)
        {
            byte t;
            t = b[0]; b[0] = b[3]; b[3] = t;
            t = b[1]; b[1] = b[2]; b[2] = t;
            t = b[4]; b[4] = b[5]; b[5] = t;
            t = b[6]; b[6] = b[7]; b[7] = t;
        }

        // ------------------------------------------------------------ ulid

        const string Crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

        /// <summary>A ULID's 16-byte binary form (identity; checks the length).</summary>
        public static byte[] Ulid(byte[] ulid)
        {
            Need(ulid, 16);
            return (byte[])ulid.Clone();
        }

        /// <summary>Parses the 26-character Crockford base32 text of a ULID.</summary>
        public static byte[] UlidFromString(string s)
        {
            if (s == null) throw new ArgumentNullException("s");
            if (s.Length != 26) throw new ArgumentException("a ULID has 26 characters", "s");
            if (s[0] > '7') throw new ArgumentException("ULID overflows 128 bits", "s");
            var r = new byte[16];
            // 26*5 = 130 bits; the top 2 are zero. Accumulate into a 128-bit big-endian number.
            for (int i = 0; i < 26; i++)
            {
                int d = Crockford.IndexOf(char.ToUpperInvariant(s[i]));
                if (d < 0)
                {
                    char c = char.ToUpperInvariant(s[i]);
                    if (c == 'O') d = 0; else if (c == 'I' || c == 'L') d = 1;
                    else throw new ArgumentException("not a Crockford base32 character: " + s[i], "s");
                }
                // r = r * 32 + d
                int carry = d;
                for (int j = 15; j >= 0; j--)
                {
                    int v = (r[j] << 5) | carry;
                    r[j] = (byte)v;
                    carry = v >> 8;
                }
            }
            return r;
        }

        public static string UlidToString(byte[] ulid)
        {
            Need(ulid, 16);
            var c = new char[26];
            // 130 bits, read 5 at a time from the top (2 leading zero bits).
            for (int i = 0; i < 26; i++)
            {
                int bit = i * 5 - 2; // position in the 128-bit number of the top bit of this digit
                int d = 0;
                for (int k = 0; k < 5; k++)
                {
                    int pos = bit + k;
                    int b = pos < 0 ? 0 : (ulid[pos >> 3] >> (7 - (pos & 7))) & 1;
                    d = (d << 1) | b;
                }
                c[i] = Crockford[d];
            }
            return new string(c);
        }

        // ------------------------------------------------------------ composite

        /// <summary>Starts a composite key: <c>Keys.Composite().Add("a").Add(7L).ToArray()</c>.</summary>
        public static CompositeKey Composite() { return new CompositeKey(); }

        // ------------------------------------------------------------ misc

        public static string ToHex(byte[] b)
        {
            if (b == null) return "null";
            var sb = new StringBuilder(b.Length * 2);
            foreach (var x in b) sb.Append(x.ToString("x2"));
            return sb.ToString();
        }
        public static byte[] FromHex(string s)
        {
            if (s == null) throw new ArgumentNullException("s");
            if (s.Length % 2 != 0) throw new ArgumentException("odd hex length", "s");
            var r = new byte[s.Length / 2];
            for (int i = 0; i < r.Length; i++) r[i] = Convert.ToByte(s.Substring(2 * i, 2), 16);
            return r;
        }

        /// <summary>memcmp order of two keys.</summary>
        public static int Compare(byte[] a, byte[] b)
        {
            int n = Math.Min(a.Length, b.Length);
            for (int i = 0; i < n; i++) if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
            return a.Length.CompareTo(b.Length);
        }

        public static bool Equal(byte[] a, byte[] b)
        {
            if (a == null || b == null) return a == b;
            if (a.Length != b.Length) return false;
            for (int i = 0; i < a.Length; i++) if (a[i] != b[i]) return false;
            return true;
        }

        /// <summary>Compares keys by bytes (for dictionaries keyed by byte[]).</summary>
        public static readonly IEqualityComparer<byte[]> EqualityComparer = new BytesComparer();
        sealed class BytesComparer : IEqualityComparer<byte[]>
        {
            public bool Equals(byte[] a, byte[] b) { return Keys.Equal(a, b); }
            public int GetHashCode(byte[] a)
            {
                unchecked { int h = (int)2166136261; foreach (var x in a) h = (h ^ x) * 16777619; return h; }
            }
        }
    }

    /// <summary>Builds a composite key part by part. Fixed-width parts are written
    /// as their encodings; bytes and strings are escaped (0x00 -> 0x00 0xFF) and
    /// terminated by 0x00 0x01, so tuples sort part by part and a tuple prefix is
    /// a key prefix.</summary>
    public sealed class CompositeKey
    {
        readonly List<byte> buf = new List<byte>(32);
        int parts;

        public int Count { get { return parts; } }

        CompositeKey Fixed(byte[] b)
        {
            if (parts >= Native.MaxParts) throw new ArgumentException("a composite key has at most 16 parts");
            buf.AddRange(b); parts++; return this;
        }
        internal CompositeKey AddFixed(byte[] encoded) { return Fixed(encoded); }
        public CompositeKey Add(long v) { return Fixed(Keys.Int64(v)); }
        public CompositeKey Add(ulong v) { return Fixed(Keys.UInt64(v)); }
        public CompositeKey Add(double v) { return Fixed(Keys.Float64(v)); }
        public CompositeKey Add(Guid v) { return Fixed(Keys.Uuid(v)); }
        public CompositeKey AddUlid(byte[] ulid) { return Fixed(Keys.Ulid(ulid)); }
        public CompositeKey Add(string s) { return AddBytes(Keys.String(s)); }
        public CompositeKey AddBytes(byte[] b)
        {
            if (b == null) throw new ArgumentNullException("b");
            if (parts >= Native.MaxParts) throw new ArgumentException("a composite key has at most 16 parts");
            foreach (var x in b)
            {
                buf.Add(x);
                if (x == 0) buf.Add(0xFF);
            }
            buf.Add(0x00); buf.Add(0x01);
            parts++;
            return this;
        }
        public byte[] ToArray() { return buf.ToArray(); }
        public static implicit operator byte[](CompositeKey k) { return k.ToArray(); }
    }
}
