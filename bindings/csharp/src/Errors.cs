// Errors.cs - status codes and DryDBException.
using System;

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
}
