package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/drydb/drydb/engine"
)

// convertOpts holds convert's flags.
type convertOpts struct {
	to, compress, memory, tempDir string
	pageSize                      int
	eytzinger, quiet              bool
}

var convertCommand = &command{
	name:    "convert",
	args:    "IN OUT --to FORMAT",
	summary: "write a native or DryDB 1.4 file in the other format (same contents)",
	setup: func(fs *flag.FlagSet, c *ctx) {
		o := &c.o.conv
		fs.StringVar(&o.to, "to", "", "output `FORMAT`: native or drydb-1.4 (required)")
		fs.IntVar(&o.pageSize, "page-size", 0, "output page size in `BYTES` (default: native keeps the input's; drydb-1.4 4096; 1.4 takes 64 to 1048576)")
		fs.StringVar(&o.compress, "compress", "", "output compression: none or zstd (default: as the input; for drydb-1.4, zstd covers the whole file)")
		fs.BoolVar(&o.eytzinger, "eytzinger", false, "drydb-1.4: store page digests in Eytzinger order")
		fs.StringVar(&o.memory, "memory", "256MiB", "native: memory budget for sorting before spilling")
		fs.StringVar(&o.tempDir, "temp-dir", "", "`DIR` for temporary files (default: the system's)")
		fs.BoolVar(&o.quiet, "quiet", false, "print nothing but errors")
		fs.BoolVar(&o.quiet, "q", false, "same as --quiet")
	},
	run: runConvert,
}

func init() {
	commandHelp["convert"] = `Reads IN (a native drydb file or a DryDB 1.4 file, told apart by its magic)
and writes its tables, rows and secondary indexes to OUT in the format --to
names, atomically (OUT may be IN). The bytes differ between runs of different
zstd encoders, the contents do not.

drydb-1.4 output is what the C# DryDB (and the Rust crate drydb 0.1.0+drydb1.4)
reads: int64 keys become i64, string and bytes keys ascii, uuid keys uuidv7
(.NET Guid layout), ulid keys ulid. 1.4 has no uint64, float64 or composite
keys, no S2 and no per-table compression: such tables are refused, naming
them. Reading a 1.4 file back gives string keys where every key is UTF-8,
bytes otherwise. See docs/DRYDB14.md, "Writing 1.4 files".
`
}

func runConvert(c *ctx) error {
	o := c.o.conv
	if len(c.args) != 2 {
		return usagef("want IN and OUT files, got %d arguments", len(c.args))
	}
	if o.to == "" {
		return usagef("missing --to native or --to %s", engine.FormatDryDB14)
	}
	mem, err := parseSize(o.memory)
	if err != nil {
		return usagef("--memory: %v", err)
	}
	in, out := c.args[0], c.args[1]
	c.path = in
	start := time.Now()
	err = engine.Convert(in, out, &engine.ConvertOptions{To: o.to, PageSize: o.pageSize, Compression: o.compress,
		Eytzinger: o.eytzinger, TempDir: o.tempDir, MemoryBudget: mem})
	if err != nil {
		return fmt.Errorf("converting %s to %s: %s", in, out, strings.TrimPrefix(err.Error(), "drydb: "))
	}
	if !o.quiet {
		fmt.Fprintf(c.out, "wrote %s (%s) in %v\n", out, o.to, time.Since(start).Round(time.Millisecond))
	}
	return nil
}
