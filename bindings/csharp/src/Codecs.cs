// Codecs.cs - value codecs: the name every builder records per table (metadata
// drydb.codec.<table>, docs/API.md) mapped to a decoder, so that values read
// back as .NET objects by default, as they do in Python and the CLI. The json
// and msgpack readers are here (small, into plain objects) so the binding
// needs no package Mono lacks.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Reflection;
using System.Text;

namespace DryDB
{
    /// <summary>The value decoders by codec name. Built in: "json" and
    /// "msgpack" (into null, bool, long, ulong, double, string, byte[],
    /// <c>List&lt;object&gt;</c> and <c>Dictionary&lt;string, object&gt;</c>), and
    /// "raw" (also "" and the names "bytes", "none": values stay byte[]).
    /// <see cref="Register"/> adds a name (or replaces a built-in one).
    /// Thread-safe.</summary>
    public static class Codecs
    {
        static readonly Dictionary<string, Func<byte[], object>> decoders = new Dictionary<string, Func<byte[], object>>(StringComparer.Ordinal)
        {
            { "json", Json.Decode }, { "msgpack", MsgPack.Decode },
        };

        // The names meaning "values are bytes" (as Python's drydb.codecs).
        static bool IsRaw(string name) { return name == "" || name == "raw" || name == "bytes" || name == "none"; }

        /// <summary>Makes <paramref name="name"/> a codec: tables recording it
        /// decode their values with <paramref name="decoder"/> (which gets a
        /// copy of the value's bytes).</summary>
        public static void Register(string name, Func<byte[], object> decoder)
        {
            if (name == null) throw new ArgumentNullException("name");
            if (decoder == null) throw new ArgumentNullException("decoder");
            if (IsRaw(name) || Encoding.UTF8.GetByteCount(name) > 64 || name.IndexOf('\n') >= 0 || name.IndexOf('\0') >= 0)
                throw new ArgumentException("drydb: a codec name is 1 to 64 bytes of UTF-8 on one line, not 'raw': \"" + name + "\"", "name");
            lock (decoders) decoders[name] = decoder;
        }

        /// <summary>The value decoded by the codec called <paramref name="name"/>
        /// (a raw name returns the bytes); NotSupportedException for a name not
        /// registered, FormatException for a value the codec cannot read.</summary>
        public static object Decode(string name, byte[] value)
        {
            if (value == null) throw new ArgumentNullException("value");
            var d = Decoder(name, null);
            return d == null ? value : d(value);
        }

        // The decoder of a codec name, null for raw ones; what: the table, for
        // the message of an unknown name.
        internal static Func<byte[], object> Decoder(string name, string what)
        {
            if (name == null) throw new ArgumentNullException("name");
            if (IsRaw(name)) return null;
            Func<byte[], object> d;
            lock (decoders) if (decoders.TryGetValue(name, out d)) return d;
            throw new NotSupportedException("drydb: " + (what == null ? "" : what + " records ") + "codec \"" + name +
                "\", which is not known here (built in: json, msgpack, raw): register its decoder with DryDB.Codecs.Register(\"" +
                name + "\", ...), or read the values as bytes (Get, TryGet, Range)");
        }

        /// <summary>A decoded value as <typeparamref name="T"/>: the object itself
        /// when it is one; numbers, bools and strings converted (an overflow is
        /// an OverflowException); lists to arrays, <c>List&lt;E&gt;</c> or its
        /// interfaces; maps to <c>Dictionary&lt;string, V&gt;</c> or to a class or
        /// struct with a parameterless constructor, by public property or field
        /// name (case-insensitive; other names are ignored). Otherwise an
        /// InvalidCastException.</summary>
        public static T ConvertTo<T>(object value) { return (T)Convert(value, typeof(T)); }

        static object Convert(object v, Type t)
        {
            if (t == typeof(object) || t.IsInstanceOfType(v)) return v;
            var under = Nullable.GetUnderlyingType(t);
            if (v == null)
            {
                if (t.IsValueType && under == null) throw Cast(v, t);
                return null;
            }
            if (under != null) return Convert(v, under);
            if (t.IsEnum)
            {
                if (v is string) return Enum.Parse(t, (string)v, true);
                if (v is long || v is ulong) return Enum.ToObject(t, v);
            }
            else if (t == typeof(Guid) && v is string) return Guid.Parse((string)v);
            else if ((t.IsPrimitive || t == typeof(decimal)) && v is IConvertible && !(v is string))
                return System.Convert.ChangeType(v, t, CultureInfo.InvariantCulture);
            var list = v as List<object>;
            if (list != null)
            {
                if (t.IsArray)
                {
                    var a = Array.CreateInstance(t.GetElementType(), list.Count);
                    for (int i = 0; i < list.Count; i++) a.SetValue(Convert(list[i], t.GetElementType()), i);
                    return a;
                }
                var e = Generic(t, typeof(List<>));
                if (e != null)
                {
                    var r = (IList)Activator.CreateInstance(typeof(List<>).MakeGenericType(e));
                    foreach (var x in list) r.Add(Convert(x, e));
                    return r;
                }
            }
            var map = v as Dictionary<string, object>;
            if (map != null)
            {
                var vt = Generic(t, typeof(Dictionary<,>));
                if (vt != null)
                {
                    var r = (IDictionary)Activator.CreateInstance(typeof(Dictionary<,>).MakeGenericType(typeof(string), vt));
                    foreach (var kv in map) r[kv.Key] = Convert(kv.Value, vt);
                    return r;
                }
                if (!t.IsAbstract && !t.IsInterface && !t.IsPrimitive && t != typeof(string) && (t.IsValueType || t.GetConstructor(Type.EmptyTypes) != null))
                    return ToObject(map, t);
            }
            throw Cast(v, t);
        }

        // The element type (value type of a string-keyed map) when t is
        // open generic g (List<E>, Dictionary<string, V>) or an interface of it.
        static Type Generic(Type t, Type g)
        {
            if (!t.IsGenericType) return null;
            var args = t.GetGenericArguments();
            var last = args[args.Length - 1];
            if (args.Length == 2 && args[0] != typeof(string)) return null;
            var made = g.MakeGenericType(g == typeof(List<>) ? new[] { last } : new[] { typeof(string), last });
            return t.IsAssignableFrom(made) ? last : null;
        }

        static object ToObject(Dictionary<string, object> map, Type t)
        {
            object o = Activator.CreateInstance(t);
            const BindingFlags pub = BindingFlags.Public | BindingFlags.Instance | BindingFlags.IgnoreCase;
            foreach (var kv in map)
            {
                var p = t.GetProperty(kv.Key, pub);
                if (p != null && p.CanWrite && p.GetIndexParameters().Length == 0) { p.SetValue(o, Convert(kv.Value, p.PropertyType), null); continue; }
                var f = t.GetField(kv.Key, pub);
                if (f != null && !f.IsInitOnly) f.SetValue(o, Convert(kv.Value, f.FieldType));
            }
            return o;
        }

        static InvalidCastException Cast(object v, Type t)
        {
            return new InvalidCastException("drydb: a decoded " + (v == null ? "null" : v.GetType().Name) + " value does not convert to " + t.Name);
        }
    }

    // JSON (RFC 8259, plus NaN, Infinity and -Infinity, which Python's json
    // writes) into plain objects. Integers without fraction or exponent are
    // long, else ulong, else double; other numbers double. A repeated object
    // name keeps the last value (as Python).
    static class Json
    {
        const int MaxDepth = 512;
        static readonly UTF8Encoding strict = new UTF8Encoding(false, true);

        internal static object Decode(byte[] b)
        {
            string s;
            try { s = strict.GetString(b); }
            catch (ArgumentException) { throw new FormatException("drydb: invalid json value: not UTF-8"); }
            int i = 0;
            var v = Value(s, ref i, 0);
            Ws(s, ref i);
            if (i != s.Length) throw Err("text after the value", i);
            return v;
        }

        static FormatException Err(string what, int at) { return new FormatException("drydb: invalid json value: " + what + " at character " + at); }

        static void Ws(string s, ref int i) { while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++; }

        static bool Word(string s, ref int i, string w)
        {
            if (string.CompareOrdinal(s, i, w, 0, w.Length) != 0) return false;
            i += w.Length;
            return true;
        }

        static object Value(string s, ref int i, int depth)
        {
            if (depth > MaxDepth) throw Err("nested deeper than " + MaxDepth, i);
            Ws(s, ref i);
            if (i >= s.Length) throw Err("unexpected end", i);
            char c = s[i];
            if (c == '{')
            {
                var d = new Dictionary<string, object>();
                i++; Ws(s, ref i);
                if (i < s.Length && s[i] == '}') { i++; return d; }
                for (;;)
                {
                    Ws(s, ref i);
                    if (i >= s.Length || s[i] != '"') throw Err("expected a string name", i);
                    string k = Str(s, ref i);
                    Ws(s, ref i);
                    if (i >= s.Length || s[i] != ':') throw Err("expected ':'", i);
                    i++;
                    d[k] = Value(s, ref i, depth + 1);
                    if (End(s, ref i, '}')) return d;
                }
            }
            if (c == '[')
            {
                var l = new List<object>();
                i++; Ws(s, ref i);
                if (i < s.Length && s[i] == ']') { i++; return l; }
                for (;;)
                {
                    l.Add(Value(s, ref i, depth + 1));
                    if (End(s, ref i, ']')) return l;
                }
            }
            if (c == '"') return Str(s, ref i);
            if (Word(s, ref i, "true")) return true;
            if (Word(s, ref i, "false")) return false;
            if (Word(s, ref i, "null")) return null;
            if (Word(s, ref i, "NaN")) return double.NaN;
            if (Word(s, ref i, "Infinity")) return double.PositiveInfinity;
            if (Word(s, ref i, "-Infinity")) return double.NegativeInfinity;
            return Num(s, ref i);
        }

        // After a member: ',' (false: another follows) or the closing character.
        static bool End(string s, ref int i, char close)
        {
            Ws(s, ref i);
            if (i < s.Length && s[i] == ',') { i++; return false; }
            if (i < s.Length && s[i] == close) { i++; return true; }
            throw Err("expected ',' or '" + close + "'", i);
        }

        static object Num(string s, ref int i)
        {
            int start = i;
            bool integer = true;
            if (i < s.Length && s[i] == '-') i++;
            if (i < s.Length && s[i] == '0') i++;
            else if (!Digits(s, ref i)) throw Err("unexpected character", start);
            if (i < s.Length && s[i] == '.') { i++; integer = false; if (!Digits(s, ref i)) throw Err("digits expected", i); }
            if (i < s.Length && (s[i] == 'e' || s[i] == 'E'))
            {
                i++; integer = false;
                if (i < s.Length && (s[i] == '+' || s[i] == '-')) i++;
                if (!Digits(s, ref i)) throw Err("digits expected", i);
            }
            string t = s.Substring(start, i - start);
            if (integer)
            {
                long l; ulong u;
                if (long.TryParse(t, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out l)) return l;
                if (ulong.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out u)) return u;
            }
            // beyond double's range: infinity, as Python (Mono's Parse throws)
            try { return double.Parse(t, NumberStyles.Float, CultureInfo.InvariantCulture); }
            catch (OverflowException) { return t[0] == '-' ? double.NegativeInfinity : double.PositiveInfinity; }
        }

        static bool Digits(string s, ref int i)
        {
            int start = i;
            while (i < s.Length && s[i] >= '0' && s[i] <= '9') i++;
            return i > start;
        }

        static string Str(string s, ref int i)
        {
            int start = ++i;
            StringBuilder sb = null;
            for (;;)
            {
                if (i >= s.Length) throw Err("unterminated string", start - 1);
                char c = s[i];
                if (c == '"') break;
                if (c < 0x20) throw Err("control character in a string", i);
                if (c != '\\') { if (sb != null) sb.Append(c); i++; continue; }
                if (sb == null) sb = new StringBuilder().Append(s, start, i - start);
                if (++i >= s.Length) throw Err("unterminated string", start - 1);
                switch (s[i])
                {
                    case '"': sb.Append('"'); break;
                    case '\\': sb.Append('\\'); break;
                    case '/': sb.Append('/'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'n': sb.Append('\n'); break;
                    case 'r': sb.Append('\r'); break;
                    case 't': sb.Append('\t'); break;
                    case 'u':
                        int h;
                        if (i + 4 >= s.Length || !int.TryParse(s.Substring(i + 1, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out h))
                            throw Err("bad \\u escape", i);
                        sb.Append((char)h); // surrogate pairs come as two escapes
                        i += 4;
                        break;
                    default: throw Err("bad escape", i);
                }
                i++;
            }
            i++;
            return sb != null ? sb.ToString() : s.Substring(start, i - 1 - start);
        }
    }

    // MessagePack into plain objects (the spec's every type): ints as long
    // (ulong above long's range), float32/64 as double, str as string, bin as
    // byte[], arrays as List<object>, maps with string keys as
    // Dictionary<string, object> (other keys are refused, as Python's msgpack
    // does by default), the timestamp extension (-1) as a UTC DateTime. Every
    // length is checked against the bytes left before anything is allocated.
    static class MsgPack
    {
        const int MaxDepth = 512;

        internal static object Decode(byte[] b)
        {
            int i = 0;
            var v = Value(b, ref i, 0);
            if (i != b.Length) throw Err("bytes after the value", i);
            return v;
        }

        static FormatException Err(string what, int at) { return new FormatException("drydb: invalid msgpack value: " + what + " at byte " + at); }

        // n bytes are there to read at i; returns i and moves past them
        static int Take(byte[] b, ref int i, long n)
        {
            if (n > b.Length - i) throw Err("truncated", i);
            int at = i;
            i += (int)n;
            return at;
        }

        static ulong BE(byte[] b, ref int i, int n)
        {
            int at = Take(b, ref i, n);
            ulong r = 0;
            for (int k = 0; k < n; k++) r = (r << 8) | b[at + k];
            return r;
        }

        static object Value(byte[] b, ref int i, int depth)
        {
            if (depth > MaxDepth) throw Err("nested deeper than " + MaxDepth, i);
            int at = Take(b, ref i, 1);
            byte c = b[at];
            if (c <= 0x7f) return (long)c;
            if (c >= 0xe0) return (long)(sbyte)c;
            if (c <= 0x8f) return Map(b, ref i, c & 0x0f, depth);
            if (c <= 0x9f) return Arr(b, ref i, c & 0x0f, depth);
            if (c <= 0xbf) return Str(b, ref i, c & 0x1f);
            switch (c)
            {
                case 0xc0: return null;
                case 0xc2: return false;
                case 0xc3: return true;
                case 0xc4: case 0xc5: case 0xc6:
                {
                    long n = (long)BE(b, ref i, 1 << (c - 0xc4));
                    int p = Take(b, ref i, n);
                    var r = new byte[n];
                    Buffer.BlockCopy(b, p, r, 0, (int)n);
                    return r;
                }
                case 0xc7: case 0xc8: case 0xc9: return Ext(b, ref i, (long)BE(b, ref i, 1 << (c - 0xc7)));
                case 0xca: return (double)BitConverter.ToSingle(BitConverter.GetBytes((uint)BE(b, ref i, 4)), 0);
                case 0xcb: return BitConverter.Int64BitsToDouble((long)BE(b, ref i, 8));
                case 0xcc: case 0xcd: case 0xce: case 0xcf:
                {
                    ulong u = BE(b, ref i, 1 << (c - 0xcc));
                    return u <= long.MaxValue ? (object)(long)u : u;
                }
                case 0xd0: return (long)(sbyte)BE(b, ref i, 1);
                case 0xd1: return (long)(short)BE(b, ref i, 2);
                case 0xd2: return (long)(int)BE(b, ref i, 4);
                case 0xd3: return (long)BE(b, ref i, 8);
                case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: return Ext(b, ref i, 1 << (c - 0xd4));
                case 0xd9: case 0xda: case 0xdb: return Str(b, ref i, (long)BE(b, ref i, 1 << (c - 0xd9)));
                case 0xdc: case 0xdd: return Arr(b, ref i, (long)BE(b, ref i, c == 0xdc ? 2 : 4), depth);
                case 0xde: case 0xdf: return Map(b, ref i, (long)BE(b, ref i, c == 0xde ? 2 : 4), depth);
                default: throw Err("unused type byte 0xc1", at);
            }
        }

        static string Str(byte[] b, ref int i, long n)
        {
            int p = Take(b, ref i, n);
            try { return Strict.GetString(b, p, (int)n); }
            catch (ArgumentException) { throw Err("a str that is not UTF-8", p); }
        }
        static readonly UTF8Encoding Strict = new UTF8Encoding(false, true);

        static List<object> Arr(byte[] b, ref int i, long n, int depth)
        {
            if (n > b.Length - i) throw Err("truncated", i); // every element takes a byte at least
            var r = new List<object>((int)n);
            for (long k = 0; k < n; k++) r.Add(Value(b, ref i, depth + 1));
            return r;
        }

        static Dictionary<string, object> Map(byte[] b, ref int i, long n, int depth)
        {
            if (2 * n > b.Length - i) throw Err("truncated", i);
            var r = new Dictionary<string, object>((int)n);
            for (long k = 0; k < n; k++)
            {
                int at = i;
                var key = Value(b, ref i, depth + 1) as string;
                if (key == null) throw Err("a map key that is not a string", at);
                r[key] = Value(b, ref i, depth + 1);
            }
            return r;
        }

        static readonly DateTime Epoch = new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc);

        static object Ext(byte[] b, ref int i, long n)
        {
            int at = i;
            sbyte type = (sbyte)BE(b, ref i, 1);
            int p = Take(b, ref i, n);
            if (type != -1) throw Err("extension type " + type + " (only the timestamp, -1, is read)", at);
            int q = p;
            long sec; uint nsec;
            if (n == 4) { sec = (long)BE(b, ref q, 4); nsec = 0; }
            else if (n == 8) { ulong x = BE(b, ref q, 8); nsec = (uint)(x >> 34); sec = (long)(x & 0x3ffffffffUL); }
            else if (n == 12) { nsec = (uint)BE(b, ref q, 4); sec = (long)BE(b, ref q, 8); }
            else throw Err("timestamp of " + n + " bytes", at);
            if (nsec > 999999999 || sec < -62135596800L || sec > 253402300799L) throw Err("timestamp out of DateTime's range", at);
            return Epoch.AddTicks(sec * TimeSpan.TicksPerSecond + nsec / 100);
        }
    }
}
