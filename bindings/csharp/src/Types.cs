// Types.cs - key kinds, compression, bounds and the info records.
using System;
using System.Collections.Generic;

namespace DryDB
{
    /// <summary>How a table's (or index's) keys are encoded (DRYDB_KEY_*).</summary>
    public enum KeyKind
    {
        Bytes = 0, String = 1, Int64 = 2, UInt64 = 3, Float64 = 4, Uuid = 5, Ulid = 6, Composite = 7,
    }

    /// <summary>Compression of a table's leaf pages (DRYDB_COMPRESS_*).</summary>
    public enum Compression { None = 0, Zstd = 1, S2 = 2 }

    /// <summary>Kind of a range bound.</summary>
    public enum BoundKind { Unbounded = 0, Inclusive = 1, Exclusive = 2 }

    /// <summary>One end of a range: unbounded, or a key, inclusive or exclusive.
    /// The key is any <see cref="DryDB.Key"/> (long, string, Guid, byte[], a
    /// tuple...), encoded against the table or index it is used with; a tuple with
    /// fewer parts than the key means every key with that prefix at this end. An
    /// empty byte[] key is a real key (the smallest), never "unbounded".</summary>
    public struct Bound
    {
        public readonly BoundKind Kind;
        internal readonly DryDB.Key Typed;

        Bound(BoundKind kind, DryDB.Key key) { Kind = kind; Typed = key; }

        /// <summary>The key's bytes in the form its C# type suggests
        /// (<see cref="DryDB.Key.ToBytes"/>); null when unbounded.</summary>
        public byte[] Key { get { return Typed.ToBytes(); } }

        public static readonly Bound Unbounded = new Bound(BoundKind.Unbounded, default(DryDB.Key));
        public static Bound Inclusive(DryDB.Key key)
        {
            if (key.IsNull) throw new ArgumentNullException("key", "a bound needs a key (Bound.Unbounded for none)");
            return new Bound(BoundKind.Inclusive, key);
        }
        public static Bound Exclusive(DryDB.Key key)
        {
            if (key.IsNull) throw new ArgumentNullException("key", "a bound needs a key (Bound.Unbounded for none)");
            return new Bound(BoundKind.Exclusive, key);
        }

        internal void Validate(string name)
        {
            if (Kind != BoundKind.Unbounded && Kind != BoundKind.Inclusive && Kind != BoundKind.Exclusive)
                throw new ArgumentException("bad bound kind", name);
            if (Kind != BoundKind.Unbounded && Typed.IsNull)
                throw new ArgumentException("bound without a key (use Bound.Unbounded)", name);
        }

        public override string ToString()
        {
            return Kind == BoundKind.Unbounded ? "Unbounded" : Kind + "(" + Typed + ")";
        }
    }

    /// <summary>Options of <see cref="Database.Open(string, DatabaseOptions)"/>.</summary>
    public sealed class DatabaseOptions
    {
        /// <summary>Check every page checksum at open (reads the whole file).</summary>
        public bool Verify { get; set; }
        /// <summary>Bytes of decompressed-page cache for compressed tables (0 = default).</summary>
        public long CacheBytes { get; set; }
    }

    public sealed class DatabaseInfo
    {
        public int FormatVersion { get; internal set; }
        public int PageSize { get; internal set; }
        public long FileSize { get; internal set; }
        public DateTime CreatedUtc { get; internal set; }
        public byte[] BuildId { get; internal set; }
        public long TableCount { get; internal set; }
    }

    public sealed class TableInfo
    {
        public KeyKind KeyKind { get; internal set; }
        public IReadOnlyList<KeyKind> Parts { get; internal set; }
        public long Rows { get; internal set; }
        public int IndexCount { get; internal set; }
        public Compression Compression { get; internal set; }
        public int Level { get; internal set; }
        public bool Dictionary { get; internal set; }
        /// <summary>Whether the table has a hash index (<see cref="TableOptions.Hash"/>).</summary>
        public bool Hashed { get; internal set; }
    }

    public sealed class IndexInfo
    {
        public KeyKind KeyKind { get; internal set; }
        public IReadOnlyList<KeyKind> Parts { get; internal set; }
        public long Entries { get; internal set; }
        public bool Unique { get; internal set; }
    }

    public struct CacheStats
    {
        public long Hits, Misses, Evictions, Bytes;
    }

    /// <summary>An entry of a secondary index: its index key, the primary key
    /// of the row and the row's value.</summary>
    public struct IndexEntry
    {
        public byte[] IndexKey;
        public byte[] PrimaryKey;
        public byte[] Value;
        public IndexEntry(byte[] indexKey, byte[] primaryKey, byte[] value)
        {
            IndexKey = indexKey; PrimaryKey = primaryKey; Value = value;
        }
    }
}
