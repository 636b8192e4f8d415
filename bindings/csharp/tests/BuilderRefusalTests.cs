// BuilderRefusalTests.cs - what the builder refuses, and when: computed index
// entries without their row, index entries whose row never comes, keys over
// the limit (at the call that gives them, naming the row), build targets that
// are not regular files.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;

namespace DryDB.Tests
{
    [TestClass]
    public sealed class BuilderRefusalTests
    {
        static KeyValuePair<byte[], byte[]> Row(string k) { return new KeyValuePair<byte[], byte[]>(Keys.String(k), Fx.B("v")); }

        static List<string> IndexKeys(SecondaryIndex ix)
        {
            var got = new List<string>();
            using (var c = ix.OpenCursor())
                while (c.Next()) got.Add(Fx.S(c.Key));
            return got;
        }

        [Test]
        public void ComputedIndexFailingHalfWayAddsNothing()
        {
            byte[] image;
            using (var b = new DatabaseBuilder())
            {
                var t = b.CreateTable("t", KeyKind.String);
                t.CreateIndex("first", KeyKind.String, (k, v) => new[] { k[0] });
                t.CreateIndex("second", KeyKind.String, (k, v) =>
                {
                    if (Fx.S(k).StartsWith("boom")) throw new InvalidOperationException("second index failed");
                    return k;
                });
                // a key of the wrong width for an int64 index: the library refuses it
                t.CreateIndex("third", KeyKind.Int64, (k, v) => Fx.S(k) == "badkey" ? new byte[3] : Keys.Int64(k.Length));
                t.Append("a", Fx.B("1"));
                Assert.Throws<InvalidOperationException>(() => t.Append("boom1", Fx.B("x")), "Append");
                Assert.Throws<InvalidOperationException>(() => t.AppendMany(new[] { Row("b"), Row("boom2"), Row("never") }), "AppendMany");
                Assert.Status(Status.BadKey, () => t.Append("badkey", Fx.B("x")), "bad computed key");
                t.AppendMany(new[] { Row("c") });
                image = b.BuildToMemory();
            }
            using (var db = Database.OpenMemory(image))
            {
                db.Verify();
                var t = db.GetTable("t");
                Assert.Equal(3L, t.Count(), "rows a, b, c");
                Assert.True(IndexKeys(t.Index("first")).SequenceEqual(new[] { "a", "b", "c" }), "first");
                Assert.True(IndexKeys(t.Index("second")).SequenceEqual(new[] { "a", "b", "c" }), "second");
                Assert.Equal(3L, t.Index("third").Count(), "third");
            }
        }

        [Test]
        public void EntryWithoutRowIsRefusedAtBuild()
        {
            using (var b = new DatabaseBuilder())
            {
                var t = b.CreateTable("items", KeyKind.Int64);
                var ix = t.CreateIndex("by_name", KeyKind.String);
                for (long i = 0; i < 100; i++) { t.Append(i, Fx.B("v")); ix.Add("n" + i, Keys.Int64(i)); }
                ix.Add("ghost", Keys.Int64(1234));
                var e = Assert.Status(Status.Invalid, () => b.BuildToMemory(), "build");
                Assert.True(e.Message.Contains("index \"by_name\" of table \"items\" has an entry (index key \"ghost\") for primary key \"1234\""), e.Message);
            }
        }

        [Test]
        public void KeyTooLargeNamesTheRow()
        {
            byte[] image;
            using (var b = new DatabaseBuilder())
            {
                var t = b.CreateTable("t", KeyKind.Bytes);
                var big = new byte[1001];
                t.AppendMany(Enumerable.Range(0, 10).Select(i => Row("a" + i)));
                // the 3,000th row of this call is the 3,010th of the table, in its third batch
                var e = Assert.Status(Status.KeyTooLarge, () => t.AppendMany(Enumerable.Range(0, 5000).Select(i =>
                    i == 3000 ? new KeyValuePair<byte[], byte[]>(big, Fx.B("v")) : Row("k" + i))), "AppendMany");
                Assert.True(e.Message.Contains("row 3010 (counted from 0): key of 1001 bytes exceeds the limit of 1000 bytes"), e.Message);
                e = Assert.Status(Status.KeyTooLarge, () => t.Append(big, Fx.B("v")), "Append");
                Assert.True(e.Message.Contains("row 3010 (counted from 0)"), e.Message);
                image = b.BuildToMemory();
            }
            using (var db = Database.OpenMemory(image))
                Assert.Equal(3010L, db.GetTable("t").Count(), "the rows before it went in");
        }

        static int Run(string cmd, params string[] args)
        {
            var si = new ProcessStartInfo(cmd, string.Join(" ", args.Select(a => "'" + a + "'"))) { UseShellExecute = false };
            using (var p = Process.Start(si)) { p.WaitForExit(); return p.ExitCode; }
        }

        [Test]
        public void BuildRefusesWhatIsNotARegularFile()
        {
            var dir = Path.Combine(Fx.Dir, "refusal-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            var fifo = Path.Combine(dir, "fifo");
            Assert.Equal(0, Run("mkfifo", fifo), "mkfifo");
            var sub = Path.Combine(dir, "sub");
            Directory.CreateDirectory(sub);
            using (var b = new DatabaseBuilder())
            {
                b.CreateTable("t", KeyKind.Bytes).Append(Fx.B("k"), Fx.B("v"));
                var e = Assert.Status(Status.Invalid, () => b.Build(fifo), "fifo");
                Assert.True(e.Message.Contains("named pipe"), e.Message);
                Assert.Equal(0, Run("test", "-p", fifo), "the FIFO is still one");
                e = Assert.Status(Status.Invalid, () => b.Build(sub), "directory");
                Assert.True(e.Message.Contains("a directory"), e.Message);
                Assert.True(Directory.GetFileSystemEntries(dir).Length == 2, "no temporary file left");
            }
        }
    }
}
