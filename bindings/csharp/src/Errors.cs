// Errors.cs - status codes and DryDBException.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace DryDB
{
    /// <summary>Native status codes (DRYDB_* in drydb.h).</summary>
    public enum Status
    {
        Ok = 0, NotFound = 1, Invalid = 2, Closed = 3, BadHandle = 4, Corrupt = 5,
        Version = 6, KeyTooLarge = 7, Duplicate = 8, BadKey = 9, IO = 10, NoMemory = 11,
        NoTable = 12, NoIndex = 13, Filter = 14, TooLarge = 15, Internal = 16,
    }

    /// <summary>A failure reported by libdrydb: <see cref="Code"/> is the native
    /// status, <see cref="Detail"/> the text of drydb_errmsg() for the call.
    /// (A closed handle is reported as <see cref="ObjectDisposedException"/>,
    /// wrong arguments caught before the call as <see cref="ArgumentException"/>.)</summary>
    [Serializable]
    public class DryDBException : Exception
    {
        public Status Code { get; private set; }
        public int NativeCode { get { return (int)Code; } }
        public string Detail { get; private set; }

        public DryDBException(Status code, string detail)
            : base(MakeMessage(code, detail))
        {
            Code = code;
            Detail = detail ?? "";
        }

        static string MakeMessage(Status code, string detail)
        {
            string s = StatusText(code);
            return string.IsNullOrEmpty(detail) ? string.Format("drydb: {0} ({1})", s, code) : string.Format("{0} ({1})", detail, code);
        }

        /// <summary>drydb_strerror(code): static English text.</summary>
        public static string StatusText(Status code)
        {
            try { return Native.FromCString(Native.drydb_strerror((int)code)); }
            catch (Exception) { return code.ToString(); }
        }
    }

    /// <summary>Library messages with the keys they quote (Go-quoted encoded
    /// bytes: "\x80\x00...") rewritten as the key reads in C# (42, "text",
    /// ("a", 1)), given the key kind of the table or index the message names.</summary>
    internal static class KeyMessages
    {
        // `table "t" has key "..." twice`, `unique index "i" has index key "..." twice`
        static readonly Regex Quoted = new Regex("(?<what>(table|index) \"(?<name>(?:[^\"\\\\]|\\\\.)*)\" has (index )?key )(?<key>\"(?:[^\"\\\\]|\\\\.)*\")(?<cut>\\.\\.\\.)?");

        internal delegate bool Lookup(bool index, string name, out KeyKind kind, out IReadOnlyList<KeyKind> parts);

        internal static string Decode(string detail, Lookup lookup)
        {
            if (string.IsNullOrEmpty(detail)) return detail;
            return Quoted.Replace(detail, m =>
            {
                KeyKind kind; IReadOnlyList<KeyKind> parts;
                byte[] key = Unquote(m.Groups["key"].Value), name = Unquote("\"" + m.Groups["name"].Value + "\"");
                if (key == null || name == null || m.Groups["cut"].Success ||
                    !lookup(m.Groups["what"].Value.StartsWith("index", StringComparison.Ordinal), Encoding.UTF8.GetString(name), out kind, out parts))
                    return m.Value;
                return m.Groups["what"].Value + Key.Describe(key, kind, parts);
            });
        }

        // The bytes of a Go-quoted string (strconv.Quote); null if it is not one.
        internal static byte[] Unquote(string q)
        {
            if (q.Length < 2 || q[0] != '"' || q[q.Length - 1] != '"') return null;
            var r = new List<byte>();
            for (int i = 1; i < q.Length - 1; i++)
            {
                char c = q[i];
                if (c != '\\') { r.AddRange(Encoding.UTF8.GetBytes(char.IsHighSurrogate(c) && i + 1 < q.Length - 1 ? q.Substring(i++, 2) : c.ToString())); continue; }
                if (++i >= q.Length - 1) return null;
                switch (q[i])
                {
                    case 'a': r.Add(7); break;
                    case 'b': r.Add(8); break;
                    case 'f': r.Add(12); break;
                    case 'n': r.Add(10); break;
                    case 'r': r.Add(13); break;
                    case 't': r.Add(9); break;
                    case 'v': r.Add(11); break;
                    case '\\': r.Add((byte)'\\'); break;
                    case '"': r.Add((byte)'"'); break;
                    case 'x':
                        if (i + 2 >= q.Length) return null;
                        r.Add(byte.Parse(q.Substring(i + 1, 2), NumberStyles.HexNumber, CultureInfo.InvariantCulture)); i += 2; break;
                    case 'u':
                    case 'U':
                        int n = q[i] == 'u' ? 4 : 8;
                        if (i + n >= q.Length) return null;
                        int cp = int.Parse(q.Substring(i + 1, n), NumberStyles.HexNumber, CultureInfo.InvariantCulture);
                        r.AddRange(Encoding.UTF8.GetBytes(char.ConvertFromUtf32(cp))); i += n; break;
                    default: return null;
                }
            }
            return r.ToArray();
        }
    }
}
