// Fixture.cs - the test database, built once per run with the C# builder.
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;

namespace DryDB.Tests
{
    public static class Fx
    {
        public const int N = 10000;           // rows of "items": int64 keys 0, 2, 4, ... (even)
        public const int Categories = 7;
        static readonly object gate = new object();
        static string dir, path;

        public static string Dir { get { Init(); return dir; } }
        public static string Path { get { Init(); return path; } }

        public static byte[] B(string s) { return Encoding.UTF8.GetBytes(s); }
        public static string S(byte[] b) { return b == null ? null : Encoding.UTF8.GetString(b); }

        // items: key 2*i (i in [0, N)), value "item-<key>", category "c<key % 7>"
        public static long ItemKey(int i) { return 2L * i; }
        public static string ItemValue(long key) { return "item-" + key; }
        public static string Category(long key) { return "c" + (key % Categories); }

        public static readonly Guid[] Guids = MakeGuids();
        static Guid[] MakeGuids()
        {
            var r = new Guid[50];
            var rnd = new Random(42);
            for (int i = 0; i < r.Length; i++) { var b = new byte[16]; rnd.NextBytes(b); r[i] = new Guid(b); }
            return r;
        }

        public static readonly double[] Floats = { double.NegativeInfinity, -1e300, -2.5, -1, -5e-324, 0, 5e-324, 1, 2.5, 1e300, double.PositiveInfinity };

        public static void Init()
        {
            lock (gate)
            {
                if (path != null) return;
                dir = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "drydb-cs-" + Environment.GetEnvironmentVariable("USER") + "-" + System.Diagnostics.Process.GetCurrentProcess().Id);
                Directory.CreateDirectory(dir);
                AppDomain.CurrentDomain.ProcessExit += (s, e) => { try { Directory.Delete(dir, true); } catch (Exception) { } };
                var p = System.IO.Path.Combine(dir, "fixture.drydb");
                Build(p);
                path = p;
            }
        }

        static void Build(string p)
        {
            using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 4096 }))
            {
                b.SetMeta("source", "csharp-tests");
                var items = b.CreateTable("items", KeyKind.Int64);
                // computed index: category (string, non-unique), from the value
                items.CreateIndex("by_category", KeyKind.String, (k, v) => Keys.String(Category(Keys.ToInt64(k))));
                // computed index that skips rows: only keys divisible by 1000, unique
                items.CreateIndex("thousands", KeyKind.Int64, (k, v) => Keys.ToInt64(k) % 1000 == 0 ? Keys.Int64(Keys.ToInt64(k) / 1000) : null, unique: true);
                var explicitIx = items.CreateIndex("by_mod10", KeyKind.Int64);
                // append in descending order (the builder sorts), half with Append, half with AppendMany
                var rows = new List<KeyValuePair<byte[], byte[]>>();
                for (int i = N - 1; i >= 0; i--)
                {
                    long k = ItemKey(i);
                    if (i % 2 == 0) items.Append(k, B(ItemValue(k)));
                    else rows.Add(new KeyValuePair<byte[], byte[]>(Keys.Int64(k), B(ItemValue(k))));
                }
                items.AppendMany(rows);
                var entries = new List<KeyValuePair<byte[], byte[]>>();
                for (int i = 0; i < N; i++)
                {
                    long k = ItemKey(i);
                    if (i < 100) explicitIx.Add((k / 2) % 10, Keys.Int64(k));
                    else entries.Add(new KeyValuePair<byte[], byte[]>(Keys.Int64((k / 2) % 10), Keys.Int64(k)));
                }
                explicitIx.AddMany(entries);

                // words: strings, zstd; value = word repeated 3 times
                var words = b.CreateTable("words", KeyKind.String, new TableOptions { Compression = Compression.Zstd });
                for (int i = 0; i < 3000; i++) { string w = "w" + i.ToString("D5"); words.Append(w, B(w + w + w)); }
                words.Append("", B("empty-key"));   // the empty key is a real key
                words.Append("über", B("umlaut"));

                var u64 = b.CreateTable("u64", KeyKind.UInt64, new TableOptions { Compression = Compression.S2 });
                foreach (var v in new ulong[] { 0, 1, 255, 1UL << 40, ulong.MaxValue - 1, ulong.MaxValue }) u64.Append(v, B("u" + v));

                var floats = b.CreateTable("floats", KeyKind.Float64);
                foreach (var f in Floats) floats.Append(f, B("f" + f.ToString("R")));

                var uuids = b.CreateTable("uuids", KeyKind.Uuid);
                for (int i = 0; i < Guids.Length; i++) uuids.Append(Guids[i], B("g" + i));

                var ulids = b.CreateTable("ulids", KeyKind.Ulid);
                ulids.Append(Keys.UlidFromString("01ARZ3NDEKTSV4RRFFQ69G5FAV"), B("ulid-1"));
                ulids.Append(Keys.Ulid(new byte[16]), B("ulid-0"));

                var pairs = b.CreateTable("pairs", new[] { KeyKind.String, KeyKind.Int64 }, new TableOptions { Compression = Compression.S2 });
                foreach (var s in new[] { "a", "a\0b", "b", "" })
                    for (long n = -3; n < 3; n++)
                        pairs.Append(Keys.Composite().Add(s).Add(n).ToArray(), B(s + ":" + n));

                // blobs: bytes keys incl. empty key and keys containing 0x00; one value of 200 KiB
                var blobs = b.CreateTable("blobs", KeyKind.Bytes);
                blobs.Append(new byte[0], B("empty"));
                blobs.Append(new byte[] { 0 }, B("zero"));
                blobs.Append(new byte[] { 0, 0 }, B("zero-zero"));
                blobs.Append(new byte[] { 1 }, Big());
                blobs.Append(new byte[] { 0xff }, new byte[0]);

                // typed: values serialized by the test's serializer
                var typed = b.CreateTable("typed", KeyKind.Int64).WithSerializer<Item>(Item.Serialize);
                for (int i = 0; i < 100; i++) typed.Append(i, new Item { Name = "n" + i, Price = i * 1.5 });

                b.Build(p);
            }
        }

        public static byte[] Big()
        {
            var r = new byte[200 * 1024];
            for (int i = 0; i < r.Length; i++) r[i] = (byte)(i * 31 + 7);
            return r;
        }

        public static Database Open() { return Database.Open(Path); }
    }

    /// <summary>A value type serialized with a hand-written "name|price" codec
    /// (stands in for MessagePack/JSON in the typed-layer tests).</summary>
    public sealed class Item
    {
        public string Name; public double Price;
        public static byte[] Serialize(Item it) { return Encoding.UTF8.GetBytes(it.Name + "|" + it.Price.ToString("R", System.Globalization.CultureInfo.InvariantCulture)); }
        public static Item Deserialize(byte[] b)
        {
            var s = Encoding.UTF8.GetString(b).Split('|');
            return new Item { Name = s[0], Price = double.Parse(s[1], System.Globalization.CultureInfo.InvariantCulture) };
        }
    }
}
