// Key.cs - a key as the caller holds it (long, ulong, double, string, Guid,
// byte[], a tuple of those), encoded against the key kind of the table or
// index it is used with: every call that takes a key or a bound takes a Key,
// so each key type works everywhere (issue 18).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace DryDB
{
    /// <summary>A key or bound in caller terms. Implicit from <c>long</c> (and
    /// <c>int</c>), <c>ulong</c>, <c>double</c>, <c>string</c>, <c>Guid</c>,
    /// <c>byte[]</c> (already encoded: passed as is) and <see cref="CompositeKey"/>
    /// (encoded); <see cref="Tuple"/> makes a composite key from its parts, and
    /// fewer parts than the table has make a prefix. A key is encoded against the
    /// table's (or index's) key kind when used: a <c>long</c> fits int64 keys and,
    /// when the value allows, uint64 and float64 keys; a <c>string</c> fits string
    /// and bytes keys (UTF-8) and ULID keys (26-character text); a <c>Guid</c>
    /// fits UUID keys (RFC 4122 order). Anything else is an ArgumentException
    /// naming the table, its kind and the key.</summary>
    public struct Key
    {
        internal enum Tag : byte { None, Int64, UInt64, Float64, String, Guid, Bytes, Tuple }

        readonly Tag tag;
        readonly long bits;   // Int64, UInt64 (reinterpreted), Float64 (bit pattern)
        readonly object obj;  // string, byte[], Key[] (Tuple); Guid boxed

        Key(Tag tag, long bits, object obj) { this.tag = tag; this.bits = bits; this.obj = obj; }

        public static implicit operator Key(long v) { return new Key(Tag.Int64, v, null); }
        // int and uint have their own conversions: through long, ulong and double
        // they would be ambiguous.
        public static implicit operator Key(int v) { return new Key(Tag.Int64, v, null); }
        public static implicit operator Key(uint v) { return new Key(Tag.Int64, v, null); }
        public static implicit operator Key(ulong v) { return new Key(Tag.UInt64, unchecked((long)v), null); }
        public static implicit operator Key(double v) { return new Key(Tag.Float64, BitConverter.DoubleToInt64Bits(v), null); }
        /// <summary>A null string is no key: as a range bound it means unbounded.</summary>
        public static implicit operator Key(string v) { return v == null ? default(Key) : new Key(Tag.String, 0, v); }
        public static implicit operator Key(Guid v) { return new Key(Tag.Guid, 0, v); }
        /// <summary>An encoded key, used as is. Null is no key: as a range bound
        /// it means unbounded.</summary>
        public static implicit operator Key(byte[] v) { return v == null ? default(Key) : new Key(Tag.Bytes, 0, v); }
        public static implicit operator Key(CompositeKey v) { return v == null ? default(Key) : new Key(Tag.Bytes, 0, v.ToArray()); }

        /// <summary>A composite key of these parts, each encoded as its part of the
        /// table's key; fewer parts than the table has make a tuple prefix, which as
        /// a range bound means "every key with this prefix" at that end.</summary>
        public static Key Tuple(params Key[] parts)
        {
            if (parts == null) throw new ArgumentNullException("parts");
            if (parts.Length > Native.MaxParts) throw new ArgumentException("a composite key has at most 16 parts", "parts");
            foreach (var p in parts)
                if (p.tag == Tag.None || p.tag == Tag.Tuple) throw new ArgumentException("a tuple part is a non-null scalar key", "parts");
            return new Key(Tag.Tuple, 0, parts.Clone());
        }

        /// <summary>True for default(Key) and the conversions of null.</summary>
        public bool IsNull { get { return tag == Tag.None; } }

        internal bool IsTuple { get { return tag == Tag.Tuple; } }
        internal int TupleLength { get { return tag == Tag.Tuple ? ((Key[])obj).Length : 0; } }

        /// <summary>The key in the form its C# type suggests, without a table:
        /// long as int64, ulong as uint64, double as float64, string as UTF-8,
        /// Guid as UUID, a tuple with those encodings per part.</summary>
        public byte[] ToBytes()
        {
            switch (tag)
            {
                case Tag.None: return null;
                case Tag.Int64: return Keys.Int64(bits);
                case Tag.UInt64: return Keys.UInt64(unchecked((ulong)bits));
                case Tag.Float64: return Keys.Float64(BitConverter.Int64BitsToDouble(bits));
                case Tag.String: return Keys.String((string)obj);
                case Tag.Guid: return Keys.Uuid((Guid)obj);
                case Tag.Bytes: return (byte[])obj;
                default:
                    var ck = Keys.Composite();
                    foreach (var p in (Key[])obj) p.AppendNatural(ck);
                    return ck.ToArray();
            }
        }

        void AppendNatural(CompositeKey ck)
        {
            switch (tag)
            {
                case Tag.Int64: ck.Add(bits); break;
                case Tag.UInt64: ck.Add(unchecked((ulong)bits)); break;
                case Tag.Float64: ck.Add(BitConverter.Int64BitsToDouble(bits)); break;
                case Tag.String: ck.Add((string)obj); break;
                case Tag.Guid: ck.Add((Guid)obj); break;
                default: ck.AddBytes((byte[])obj); break;
            }
        }

        /// <summary>The key encoded for a table or index of this kind (parts: of a
        /// composite kind); <paramref name="what"/> names it in errors.</summary>
        internal byte[] Encode(KeyKind kind, IReadOnlyList<KeyKind> parts, string what)
        {
            if (tag == Tag.None) throw new ArgumentNullException("key", "null is no key of " + what);
            if (tag == Tag.Bytes) return (byte[])obj;
            if (kind == KeyKind.Composite)
            {
                if (tag != Tag.Tuple) throw Mismatch(kind, what, "(use Key.Tuple(...) for composite keys)");
                var ps = (Key[])obj;
                if (ps.Length > parts.Count) throw Mismatch(kind, what, string.Format("(a tuple of {0} parts; the key has {1})", ps.Length, parts.Count));
                var ck = Keys.Composite();
                for (int i = 0; i < ps.Length; i++)
                {
                    if (ps[i].tag == Tag.Bytes) { ck.AddBytes((byte[])ps[i].obj); continue; }
                    var b = ps[i].Scalar(parts[i], what + " part " + i);
                    if (parts[i] == KeyKind.String || parts[i] == KeyKind.Bytes) ck.AddBytes(b);
                    else ck.AddFixed(b);
                }
                return ck.ToArray();
            }
            if (tag == Tag.Tuple) throw Mismatch(kind, what, "");
            return Scalar(kind, what);
        }

        byte[] Scalar(KeyKind kind, string what)
        {
            switch (kind)
            {
                case KeyKind.Int64:
                    if (tag == Tag.Int64) return Keys.Int64(bits);
                    if (tag == Tag.UInt64 && bits >= 0) return Keys.Int64(bits);
                    break;
                case KeyKind.UInt64:
                    if (tag == Tag.UInt64 || (tag == Tag.Int64 && bits >= 0)) return Keys.UInt64(unchecked((ulong)bits));
                    break;
                case KeyKind.Float64:
                    if (tag == Tag.Float64) return Keys.Float64(BitConverter.Int64BitsToDouble(bits));
                    if (tag == Tag.Int64 && (long)(double)bits == bits) return Keys.Float64(bits);
                    if (tag == Tag.UInt64 && (ulong)(double)unchecked((ulong)bits) == unchecked((ulong)bits)) return Keys.Float64(unchecked((ulong)bits));
                    break;
                case KeyKind.String:
                case KeyKind.Bytes:
                    if (tag == Tag.String) return Keys.String((string)obj);
                    break;
                case KeyKind.Uuid:
                    if (tag == Tag.Guid) return Keys.Uuid((Guid)obj);
                    break;
                case KeyKind.Ulid:
                    if (tag == Tag.String) return Keys.UlidFromString((string)obj);
                    break;
            }
            throw Mismatch(kind, what, "");
        }

        ArgumentException Mismatch(KeyKind kind, string what, string hint)
        {
            return new ArgumentException(string.Format("{0} has {1} keys; the {2} key {3} does not fit it{4}",
                what, kind, TypeName, this, hint.Length > 0 ? " " + hint : ""), "key");
        }

        string TypeName
        {
            get
            {
                switch (tag)
                {
                    case Tag.Int64: return "long";
                    case Tag.UInt64: return "ulong";
                    case Tag.Float64: return "double";
                    case Tag.String: return "string";
                    case Tag.Guid: return "Guid";
                    case Tag.Bytes: return "byte[]";
                    case Tag.Tuple: return "tuple";
                    default: return "null";
                }
            }
        }

        /// <summary>The key as written in C#: 42, 42UL, 2.5, "text", a Guid, hex
        /// bytes (0x...), (parts).</summary>
        public override string ToString()
        {
            switch (tag)
            {
                case Tag.Int64: return bits.ToString(CultureInfo.InvariantCulture);
                case Tag.UInt64: return unchecked((ulong)bits).ToString(CultureInfo.InvariantCulture) + "UL";
                case Tag.Float64: return BitConverter.Int64BitsToDouble(bits).ToString("R", CultureInfo.InvariantCulture);
                case Tag.String: return Quote((string)obj);
                case Tag.Guid: return ((Guid)obj).ToString();
                case Tag.Bytes: return "0x" + Keys.ToHex((byte[])obj);
                case Tag.Tuple:
                    var sb = new StringBuilder("(");
                    var ps = (Key[])obj;
                    for (int i = 0; i < ps.Length; i++) sb.Append(i > 0 ? ", " : "").Append(ps[i]);
                    return sb.Append(ps.Length == 1 ? ",)" : ")").ToString();
                default: return "null";
            }
        }

        internal static string Quote(string s) { return "\"" + s.Replace("\\", "\\\\").Replace("\"", "\\\"") + "\""; }

        /// <summary>An encoded key of this kind, decoded for messages: 42, "text",
        /// a Guid, ("a", 1); the hex bytes when it does not decode.</summary>
        public static string Describe(byte[] key, KeyKind kind, IReadOnlyList<KeyKind> parts)
        {
            if (key == null) return "null";
            try
            {
                switch (kind)
                {
                    case KeyKind.Int64: if (key.Length == 8) return Keys.ToInt64(key).ToString(CultureInfo.InvariantCulture); break;
                    case KeyKind.UInt64: if (key.Length == 8) return Keys.ToUInt64(key).ToString(CultureInfo.InvariantCulture); break;
                    case KeyKind.Float64: if (key.Length == 8) return Keys.ToFloat64(key).ToString("R", CultureInfo.InvariantCulture); break;
                    case KeyKind.String: return Quote(new UTF8Encoding(false, true).GetString(key));
                    case KeyKind.Uuid: if (key.Length == 16) return Keys.ToGuid(key).ToString(); break;
                    case KeyKind.Ulid: if (key.Length == 16) return Keys.UlidToString(key); break;
                    case KeyKind.Composite:
                        var d = DescribeTuple(key, parts);
                        if (d != null) return d;
                        break;
                }
            }
            catch (ArgumentException) { }
            return "0x" + Keys.ToHex(key);
        }

        // ("a", 1): each part decoded; null when the bytes are no tuple of parts.
        static string DescribeTuple(byte[] key, IReadOnlyList<KeyKind> parts)
        {
            var sb = new StringBuilder("(");
            int pos = 0, n = 0;
            for (; n < parts.Count && pos < key.Length; n++)
            {
                if (n > 0) sb.Append(", ");
                var k = parts[n];
                if (k == KeyKind.String || k == KeyKind.Bytes)
                {
                    var part = new List<byte>();
                    for (;;)
                    {
                        if (pos + 1 >= key.Length) return null;
                        if (key[pos] != 0) { part.Add(key[pos++]); continue; }
                        if (key[pos + 1] == 0xFF) { part.Add(0); pos += 2; continue; }
                        if (key[pos + 1] != 0x01) return null;
                        pos += 2;
                        break;
                    }
                    sb.Append(k == KeyKind.String ? Quote(new UTF8Encoding(false, true).GetString(part.ToArray())) : "0x" + Keys.ToHex(part.ToArray()));
                    continue;
                }
                int w = k == KeyKind.Uuid || k == KeyKind.Ulid ? 16 : 8;
                if (pos + w > key.Length) return null;
                var b = new byte[w];
                Buffer.BlockCopy(key, pos, b, 0, w);
                pos += w;
                sb.Append(Describe(b, k, null));
            }
            if (pos != key.Length) return null;
            return sb.Append(n == 1 ? ",)" : ")").ToString();
        }
    }
}
