package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/drydb/drydb/engine"
)

var mergeCommand = &command{
	name:    "merge",
	args:    "BASE.drydb [flags] [TABLE=]CHANGES... -o OUT.drydb",
	summary: "write BASE with the upserts and deletes of CHANGES applied (rebuild by merge)",
	setup:   func(fs *flag.FlagSet, c *ctx) { (&mergeOpts{}).register(fs) },
	run:     nil, // merge parses its own arguments: see runMerge
}

func init() {
	commandHelp["merge"] = `Each CHANGES input (CSV, TSV or JSON Lines, as for build) holds changes to
the table it is named after ("users.csv" -> users) or TABLE=CHANGES. A row
upserts: it replaces the row of its key or adds one. A row whose column
"_op" is "delete" deletes its key (other columns are ignored; deleting a key
that is not there does nothing); "_op" empty or "upsert" upserts, and the
_op column is not stored. A key may change once per merge.

Key columns, key encoding, value format and index columns are those the
table was built with (build records them in the file); compression and page
size are kept. Untouched pages are copied, not rebuilt, so a merge of a few
changes costs little more than copying the file. OUT may be BASE: it is
replaced atomically, and readers that have BASE open keep the old version.

  -o, --out FILE      the file to write (required)
  --value COL         for tables built with --value: the column to store
`
}

// opColumn is the column whose "delete" makes a row a delete.
const opColumn = "_op"

type mergeOpts struct {
	out, value, memory, tempDir, format, delimiter string
	noHeader, quiet, skipBad                       bool
	maxErrors                                      int
}

func (o *mergeOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "out", "", "write the merged file to `FILE`")
	fs.StringVar(&o.out, "o", "", "same as --out")
	fs.StringVar(&o.value, "value", "", "the value `COLUMN` of tables built with --value")
	fs.StringVar(&o.format, "format", "", "input format: csv, tsv or jsonl (default: from the extension)")
	fs.StringVar(&o.delimiter, "delimiter", ",", "CSV field delimiter")
	fs.BoolVar(&o.noHeader, "no-header", false, "CSV/TSV input has no header line; columns are named 1, 2, ...")
	fs.StringVar(&o.memory, "memory", "256MiB", "memory budget for sorting the changes before spilling")
	fs.StringVar(&o.tempDir, "temp-dir", "", "`DIR` for temporary files (default: the system's)")
	fs.BoolVar(&o.skipBad, "skip-bad", false, "skip bad input lines (reported and counted) instead of failing")
	fs.IntVar(&o.maxErrors, "max-report", 20, "with --skip-bad, print at most `N` bad lines")
	fs.BoolVar(&o.quiet, "quiet", false, "print nothing but errors")
	fs.BoolVar(&o.quiet, "q", false, "same as --quiet")
}

func runMerge(c *ctx, args []string) error {
	o := &mergeOpts{}
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.register(fs)
	pos, err := parseFlags(fs, args, nil)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandUsage(c.out, c.cmd, false)
			return flag.ErrHelp
		}
		return usagef("%v", err)
	}
	if len(pos) == 0 {
		return usagef("missing BASE file")
	}
	if len(pos) == 1 {
		return usagef("no CHANGES files")
	}
	if o.out == "" {
		return usagef("missing -o OUT file")
	}
	mem, err := parseSize(o.memory)
	if err != nil {
		return usagef("--memory: %v", err)
	}
	c.path = pos[0]
	base, err := engine.Open(pos[0], nil)
	if err != nil {
		return err
	}
	defer base.Close()
	meta := base.Info().Metadata
	// The changes are read with build's per-input machinery: the spec of
	// each input is the one the table was built with.
	bo := &buildOpts{format: o.format, delimiter: o.delimiter, noHeader: o.noHeader, skipBad: o.skipBad, maxErrors: o.maxErrors, quiet: o.quiet}
	var specs []tableSpec
	for _, arg := range pos[1:] {
		ts, err := bo.spec(arg)
		if err != nil {
			return err
		}
		tbl, err := base.Table(ts.name)
		if err != nil {
			return usagef("%s: %s has no table %q; name it with TABLE=%s", arg, pos[0], ts.name, ts.path)
		}
		ts.enc, ts.comp, ts.merge = tbl.Encoding(), tbl.Compression(), true
		ts.keyCols = splitCols(string(meta[metaKeyColumns+ts.name]))
		if vf := string(meta[metaValueFormat+ts.name]); vf != "" {
			ts.valueFmt = vf
		}
		ts.valueCol = ""
		if ts.valueFmt == fmtRaw {
			if o.value == "" {
				return usagef("table %s stores one column raw: name it with --value COLUMN", ts.name)
			}
			ts.valueCol = o.value
		}
		for _, name := range tbl.Indexes() {
			ix, _ := tbl.Index(name)
			cols := splitCols(string(meta[metaIndexCols+ts.name+"."+name]))
			if len(cols) == 0 {
				return fmt.Errorf("table %s: index %s was not built by the drydb command (its columns are unknown): merge with the library", ts.name, name)
			}
			ts.indexes = append(ts.indexes, indexSpec{name: name, cols: cols, enc: ix.Encoding(), unique: ix.Unique()})
		}
		specs = append(specs, ts)
	}
	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	eb, err := engine.NewMergeBuilder(base, &engine.BuilderOptions{MemoryBudget: mem, TempDir: o.tempDir})
	if err != nil {
		return err
	}
	defer eb.Close()
	b := &builder{c: c, o: bo, out: o.out, specs: specs}
	for i := range specs {
		if _, err := b.table(ctx, eb, &specs[i]); err != nil {
			return err
		}
	}
	rep, err := eb.BuildToFile(o.out)
	if err != nil {
		return fmt.Errorf("merging into %s: %s", o.out, strings.TrimPrefix(err.Error(), "drydb: "))
	}
	if o.quiet {
		return nil
	}
	return b.summary(rep, time.Since(start))
}

// mergeOp reads and removes a change row's _op column: whether the row
// deletes its key.
func mergeOp(file string, rec *record) (bool, error) {
	for i, kv := range rec.row {
		if kv.Key != opColumn {
			continue
		}
		op, _ := cellString(kv.Value)
		rec.row = append(rec.row[:i:i], rec.row[i+1:]...)
		switch op {
		case "", "upsert":
			return false, nil
		case "delete":
			return true, nil
		}
		return false, &lineError{file, rec.line, fmt.Sprintf("%s is %q; want delete, upsert or empty", opColumn, op)}
	}
	return false, nil
}
