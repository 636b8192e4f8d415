// Write14Tests.cs - DryDB 1.4 output: a DatabaseBuilder with Format
// FileFormat.DryDB14 writes a 1.4 file (header "DRY\0" 1 4) that reads back
// with the rows and index entries of the native build of the same input;
// FileFormat.Convert turns it into a native file and back; what 1.4 cannot
// hold is refused naming it. (engine/drydb14's Go tests check such files
// with the Rust crate drydb 0.1.0+drydb1.4 too.)
using System;
using System.Collections.Generic;
using System.IO;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class Write14Tests
    {
        static string Tmp(string name) { return System.IO.Path.Combine(Fx.Dir, "w14-" + name + ".drydb"); }

        static void Fill(DatabaseBuilder b, Compression comp)
        {
            var t = b.CreateTable("items", KeyKind.Int64, new TableOptions { Compression = comp });
            var grp = t.CreateIndex("grp", KeyKind.Int64);
            var name = t.CreateIndex("name", KeyKind.String, true);
            for (long i = -800; i < 800; i++)
            {
                t.Append(i * 13, i == 5 ? new byte[70000] : Fx.B("v" + i));
                grp.Add(i % 3, Keys.Int64(i * 13));
                name.Add("n" + (i + 800).ToString("D5"), Keys.Int64(i * 13));
            }
            var g = b.CreateTable("ids", KeyKind.Uuid);
            for (int i = 0; i < Fx.Guids.Length; i++) g.Append(Fx.Guids[i], Fx.B("g" + i));
            var s = b.CreateTable("strs", KeyKind.Bytes);
            s.Append(new byte[0], Fx.B("empty"));
            s.Append(new byte[] { 0xff }, new byte[0]);
        }

        static List<string> Contents(string path)
        {
            Func<Cursor, bool, List<string>> Walk = MergeTests.Walk;
            using (var db = Database.Open(path))
            {
                db.Verify();
                var t = db.GetTable("items");
                var all = Walk(t.OpenCursor(), false);
                all.AddRange(Walk(db.GetTable("ids").OpenCursor(), false));
                all.AddRange(Walk(db.GetTable("strs").OpenCursor(), false));
                all.AddRange(Walk(t.Index("grp").OpenCursor(), true));
                all.AddRange(Walk(t.Index("name").OpenCursor(), true));
                return all;
            }
        }

        static void Is14(string path, bool zstd)
        {
            var h = File.ReadAllBytes(path);
            Assert.True(h.Length > 7 && h[0] == (byte)'D' && h[1] == (byte)'R' && h[2] == (byte)'Y' && h[3] == 0 && h[4] == 1 && h[5] == 4, "1.4 header");
            Assert.Equal(zstd ? 1 : 0, (int)h[6], "filter count");
        }

        [Test]
        public void BuildAndConvert()
        {
            foreach (var comp in new[] { Compression.None, Compression.Zstd })
            {
                string native = Tmp("native"), v14 = Tmp("v14"), back = Tmp("back"), again = Tmp("again");
                using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 1024 })) { Fill(b, Compression.None); b.Build(native); }
                using (var b = new DatabaseBuilder(new BuilderOptions { PageSize = 1024, Format = FileFormat.DryDB14 })) { Fill(b, comp); b.Build(v14); }
                Is14(v14, comp == Compression.Zstd);
                var want = Contents(native);
                Assert.Equal(string.Join("\n", want), string.Join("\n", Contents(v14)), "1.4 build");
                FileFormat.Convert(v14, back, FileFormat.Native);
                Assert.Equal(string.Join("\n", want), string.Join("\n", Contents(back)), "converted to native");
                FileFormat.Convert(back, again, FileFormat.DryDB14, 4096, "zstd");
                Is14(again, true);
                Assert.Equal(string.Join("\n", want), string.Join("\n", Contents(again)), "converted back to 1.4");
            }
        }

        [Test]
        public void Refusals()
        {
            Assert.Throws<ArgumentException>(() => new DatabaseBuilder(new BuilderOptions { Format = "drydb-9" }), "unknown format");
            using (var b = new DatabaseBuilder(new BuilderOptions { Format = FileFormat.DryDB14 }))
            {
                var e = Assert.Status(Status.Invalid, () => b.CreateTable("f", KeyKind.Float64), "float64 table");
                Assert.True(e.Message.Contains("\"f\"") && e.Message.Contains("float64"), e.Message);
                e = Assert.Status(Status.Invalid, () => b.CreateTable("s", KeyKind.Int64, new TableOptions { Compression = Compression.S2 }), "S2 table");
                Assert.True(e.Message.Contains("S2"), e.Message);
                var t = b.CreateTable("ok", KeyKind.Int64);
                e = Assert.Status(Status.Invalid, () => t.CreateIndex("u", KeyKind.UInt64), "uint64 index");
                Assert.True(e.Message.Contains("uint64"), e.Message);
            }
            string src = Tmp("u"), dst = Tmp("u-out");
            using (var b = new DatabaseBuilder()) { b.CreateTable("u", KeyKind.UInt64).Append(1UL, Fx.B("x")); b.Build(src); }
            var ce = Assert.Status(Status.Invalid, () => FileFormat.Convert(src, dst, FileFormat.DryDB14), "uint64 table converted");
            Assert.True(ce.Message.Contains("\"u\"") && ce.Message.Contains("uint64"), ce.Message);
            Assert.Status(Status.Invalid, () => FileFormat.Convert(src, dst, "csv"), "unknown format");
            Assert.False(File.Exists(dst), "a failed convert wrote its output");
        }
    }
}
