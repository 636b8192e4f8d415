// Table.Codecs.cs - values decoded by the codec the file records for the
// table (Codecs.cs), beside the byte[] calls, which stay as they are.
using System;
using System.Collections.Generic;

namespace DryDB
{
    public sealed unsafe partial class Table
    {
        /// <summary>The name of the values' encoding recorded in the file ("json",
        /// "msgpack", "raw", a user's name), "" when none. The byte[] calls
        /// ignore it; <see cref="GetDecoded"/>, <see cref="Get{T}"/>,
        /// <see cref="Decoded"/> and Cursor.DecodedValue decode by it (see <see cref="Codecs"/>).</summary>
        public string Codec
        {
            get
            {
                using (db.Call())
                {
                    IntPtr p;
                    Native.Check(Native.drydb_table_codec(th, &p));
                    return Native.FromCString(p);
                }
            }
        }

        // The decoder of the recorded codec, null for raw values. Both looked
        // up per call: a Codecs.Register after the table was opened counts, and
        // so does a Refresh onto a file that records another codec.
        Func<byte[], object> Decoder() { return Codecs.Decoder(Codec, What); }

        internal object Decode(byte[] value)
        {
            var d = Decoder();
            return d == null ? value : d(value);
        }

        /// <summary>The value decoded by the table's codec (<see cref="Codec"/>):
        /// json and msgpack into plain objects (see <see cref="Codecs"/>), a
        /// registered codec by its decoder, raw values as byte[]. False if the
        /// key is absent. NotSupportedException (naming the codec) for a codec not
        /// registered, FormatException for a value it cannot read.</summary>
        public bool TryGetDecoded(Key key, out object value)
        {
            byte[] b;
            if (!TryGet(key, out b)) { value = null; return false; }
            value = Decode(b);
            return true;
        }

        /// <summary>The decoded value, or null if the key is absent (a stored null
        /// too: <see cref="TryGetDecoded"/> tells them apart).</summary>
        public object GetDecoded(Key key) { object v; TryGetDecoded(key, out v); return v; }

        /// <summary>The decoded value as <typeparamref name="T"/> (converted as
        /// <see cref="Codecs.ConvertTo{T}"/> does: a class by its property names,
        /// numbers, lists, maps). False if the key is absent.</summary>
        public bool TryGetValue<T>(Key key, out T value)
        {
            object v;
            if (!TryGetDecoded(key, out v)) { value = default(T); return false; }
            value = Codecs.ConvertTo<T>(v);
            return true;
        }

        /// <summary>The decoded value as <typeparamref name="T"/>, or default(T)
        /// if the key is absent (as <c>Get</c> gives null).</summary>
        public T Get<T>(Key key) { T v; TryGetValue(key, out v); return v; }

        /// <summary>This table with its values decoded by its codec, as objects:
        /// the rows of Range, Prefix and All, GetMany, async twins. The codec is
        /// resolved now (NotSupportedException naming it if unknown).</summary>
        public TypedTable<object> Decoded() { return Decoded<object>(); }

        /// <summary>This table with its values decoded by its codec and converted
        /// to <typeparamref name="T"/> (see <see cref="Codecs.ConvertTo{T}"/>).</summary>
        public TypedTable<T> Decoded<T>()
        {
            var d = Decoder();
            if (d == null) return new TypedTable<T>(this, b => Codecs.ConvertTo<T>(b));
            return new TypedTable<T>(this, b => Codecs.ConvertTo<T>(d(b)));
        }

        /// <summary>This table viewed through a value serializer (MessagePack,
        /// JSON... of the caller's choosing).</summary>
        public TypedTable<T> WithSerializer<T>(Func<byte[], T> deserialize)
        {
            return new TypedTable<T>(this, deserialize);
        }
    }
}
