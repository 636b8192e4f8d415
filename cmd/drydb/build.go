package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/drydb/drydb/cmd/drydb/internal/lineedit"
	"github.com/drydb/drydb/cmd/drydb/internal/msgpack"
	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

var buildCommand = &command{
	name:    "build",
	args:    "OUT.drydb [flags] [NAME=]INPUT...",
	summary: "build a file from CSV, TSV or JSON Lines inputs (one table each)",
	setup:   func(fs *flag.FlagSet, c *ctx) { (&buildOpts{}).register(fs) },
	run:     nil, // build parses its own arguments: see runBuild
}

func init() {
	commandHelp["build"] = `Each INPUT becomes a table, named after the file ("users.csv" -> users) or
NAME=INPUT. The format comes from the extension (.csv, .tsv, .jsonl, .ndjson,
optionally .gz) or --format; "-" reads standard input. CSV and TSV inputs
start with a header line (or use --no-header: columns are then 1, 2, ...).

Table flags apply to the inputs that follow them, until changed, so
  drydb build shop.drydb --key id users.csv --key sku -e string products.csv
keys users by id and products by sku. --index and --unique-index apply to the
next input only.

  --key COL[,COL...]          key column(s); default the first column. A new
                              --key resets the encoding unless -e is also given
  -e, --key-encoding ENC      string (default), bytes, int64, uint64, float64,
                              uuid, ulid, or composite(int64,string,...);
                              several key columns default to composite(string,...)
  --value COL                 store only this column's text as the value
  --value-format FMT          json (default: the whole row), msgpack (the whole
                              row) or raw (needs --value)
  --index [NAME=]COL[,COL][:ENC]    add a secondary index (default encoding string);
  --unique-index ...          rows with an empty or null index column are left out

Bad input lines (unparsable CSV or JSON, wrong field count, a key that does
not parse) are reported as FILE:LINE and fail the build, leaving no output
file; with --skip-bad they are reported, counted and skipped. The output
file appears only when the build succeeds.
`
}

// tableSpec is one input and the options in force when it was named.
type tableSpec struct {
	name      string
	path      string
	format    string
	keyCols   []string
	enc       keyenc.Encoding
	valueCol  string
	valueFmt  string
	comp      engine.Compression
	hash      engine.HashMode
	noHeader  bool
	delimiter rune
	infer     bool
	indexes   []indexSpec
	// merge: the input holds changes (merge.go), rows with _op=delete delete
	merge bool
}

type indexSpec struct {
	name   string
	cols   []string
	enc    keyenc.Encoding
	unique bool
}

// buildOpts are build's flags. Table flags are sticky: each input takes the
// values in force when it appears on the command line.
type buildOpts struct {
	// table flags
	key, keyEnc, value, valueFmt, format, comp, delimiter, hash string
	level                                                       int
	dict, noHeader, infer, encSet                               bool
	indexes                                                     []indexSpec
	// file flags
	pageSize                         int
	memory, tempDir                  string
	sorted, skipBad, quiet, progress bool
	jsonOut                          bool
	meta                             []string
	maxErrors                        int
	specErr                          error
}

func (o *buildOpts) register(fs *flag.FlagSet) {
	// A new --key starts from the default encoding unless -e was given for
	// the same input: the next table's key is usually of another type.
	setKey := func(s string) error {
		o.key = s
		if !o.encSet {
			o.keyEnc = ""
		}
		return nil
	}
	setEnc := func(s string) error { o.keyEnc, o.encSet = s, true; return nil }
	fs.Func("key", "key `COLUMNS`, comma separated (default: the first column)", setKey)
	fs.Func("k", "same as --key", setKey)
	fs.Func("key-encoding", "key `ENCODING` (default string, or composite(string,...) for several columns)", setEnc)
	fs.Func("e", "same as --key-encoding", setEnc)
	// --value and --value-format replace each other for the inputs that
	// follow, so a later table can go back to whole rows.
	fs.Func("value", "store only this `COLUMN` as the value (raw)", func(s string) error {
		o.value, o.valueFmt = s, ""
		return nil
	})
	fs.Func("value-format", "json, msgpack or raw (default json, or raw with --value)", func(s string) error {
		o.valueFmt = s
		if s != fmtRaw {
			o.value = ""
		}
		return nil
	})
	fs.StringVar(&o.format, "format", "", "input format: csv, tsv or jsonl (default: from the extension)")
	fs.StringVar(&o.delimiter, "delimiter", ",", "CSV field delimiter")
	fs.BoolVar(&o.noHeader, "no-header", false, "CSV/TSV input has no header line; columns are named 1, 2, ...")
	fs.BoolVar(&o.infer, "infer-types", false, "store CSV/TSV numbers, true/false and empty fields as JSON numbers, booleans and null")
	fs.StringVar(&o.comp, "compression", "none", "page compression: none, zstd or s2")
	fs.StringVar(&o.comp, "c", "none", "same as --compression")
	fs.IntVar(&o.level, "level", 0, "zstd level 1 (fastest) to 4 (best); 0 default")
	fs.BoolVar(&o.dict, "dict", false, "train a zstd dictionary per table")
	fs.StringVar(&o.hash, "hash", "auto", "hash index for point lookups: auto (unless compressed or consecutive integer keys), on or off")
	fs.Func("index", "add an index `[NAME=]COL[,COL...][:ENCODING]` to the next input (repeatable)", func(s string) error { return o.addIndex(s, false) })
	fs.Func("unique-index", "add a unique index `[NAME=]COL[,COL...][:ENCODING]` to the next input", func(s string) error { return o.addIndex(s, true) })
	fs.IntVar(&o.pageSize, "page-size", 4096, "page size in `BYTES`, a power of two from 512 to 65536")
	fs.StringVar(&o.memory, "memory", "256MiB", "memory budget for sorting before spilling to temporary files (e.g. 64MiB, 2GiB)")
	fs.StringVar(&o.tempDir, "temp-dir", "", "`DIR` for temporary files (default: the system's)")
	fs.BoolVar(&o.sorted, "sorted", false, "input is sorted by key: check it and report the first line out of order")
	fs.BoolVar(&o.skipBad, "skip-bad", false, "skip bad input lines (reported and counted) instead of failing")
	fs.IntVar(&o.maxErrors, "max-report", 20, "with --skip-bad, print at most `N` bad lines")
	fs.Func("meta", "store `KEY=VALUE` in the file's metadata (repeatable)", func(s string) error {
		if !strings.Contains(s, "=") {
			return errors.New("want KEY=VALUE")
		}
		o.meta = append(o.meta, s)
		return nil
	})
	fs.BoolVar(&o.quiet, "quiet", false, "print nothing but errors")
	fs.BoolVar(&o.quiet, "q", false, "same as --quiet")
	fs.BoolVar(&o.progress, "progress", false, "show the progress bar even when stderr is not a terminal")
	fs.BoolVar(&o.jsonOut, "json", false, "print the summary as JSON")
}

func (o *buildOpts) addIndex(s string, unique bool) error {
	ix := indexSpec{unique: unique, enc: keyenc.Encoding{Kind: keyenc.String}}
	if i := strings.LastIndex(s, ":"); i >= 0 {
		e, err := keyenc.ParseEncoding(s[i+1:])
		if err != nil {
			return fmt.Errorf("bad index encoding %q: %v", s[i+1:], err)
		}
		ix.enc = e
		s = s[:i]
	}
	if i := strings.Index(s, "="); i >= 0 {
		ix.name = s[:i]
		s = s[i+1:]
	}
	ix.cols = splitCols(s)
	if len(ix.cols) == 0 {
		return errors.New("index needs at least one column")
	}
	if ix.name == "" {
		ix.name = strings.Join(ix.cols, "_")
	}
	if len(ix.cols) > 1 && ix.enc.Kind != keyenc.Composite {
		parts := make([]keyenc.Kind, len(ix.cols))
		for i := range parts {
			parts[i] = ix.enc.Kind
		}
		ix.enc = keyenc.Encoding{Kind: keyenc.Composite, Parts: parts}
	}
	if ix.enc.Kind == keyenc.Composite && len(ix.enc.Parts) != len(ix.cols) {
		return fmt.Errorf("index %s: %d columns but encoding %s has %d parts", ix.name, len(ix.cols), ix.enc, len(ix.enc.Parts))
	}
	o.indexes = append(o.indexes, ix)
	return nil
}

func splitCols(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// spec snapshots the table flags for the input arg.
func (o *buildOpts) spec(arg string) (tableSpec, error) {
	ts := tableSpec{path: arg, format: o.format, noHeader: o.noHeader, infer: o.infer, valueCol: o.value, indexes: o.indexes}
	o.indexes = nil
	o.encSet = false
	if i := strings.Index(arg, "="); i > 0 {
		if _, err := os.Stat(arg); err != nil {
			ts.name, ts.path = arg[:i], arg[i+1:]
		}
	}
	if st, err := os.Stat(ts.path); err == nil && st.IsDir() {
		return ts, usagef("%s is a directory; give its files as inputs (e.g. %s)", ts.path, filepath.Join(ts.path, "*.csv"))
	}
	base := filepath.Base(ts.path)
	lower := strings.ToLower(base)
	lower = strings.TrimSuffix(lower, ".gz")
	ext := filepath.Ext(lower)
	if ts.format == "" {
		switch ext {
		case ".csv":
			ts.format = "csv"
		case ".tsv", ".tab":
			ts.format = "tsv"
		case ".jsonl", ".ndjson", ".json":
			ts.format = "jsonl"
		default:
			return ts, usagef("%s: cannot tell the format from the name; use --format csv, tsv or jsonl", arg)
		}
	}
	switch ts.format {
	case "csv", "tsv", "jsonl":
	case "ndjson", "json":
		ts.format = "jsonl"
	default:
		return ts, usagef("--format must be csv, tsv or jsonl, not %q", ts.format)
	}
	if ts.name == "" {
		if ts.path == "-" {
			ts.name = "stdin"
		} else {
			ts.name = strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), filepath.Ext(strings.TrimSuffix(base, ".gz")))
		}
	}
	ts.delimiter = ','
	if ts.format == "tsv" {
		ts.delimiter = '\t'
	} else if o.delimiter != "," {
		d := o.delimiter
		if d == `\t` {
			d = "\t"
		}
		if len([]rune(d)) != 1 {
			return ts, usagef("--delimiter must be one character")
		}
		ts.delimiter = []rune(d)[0]
	}
	ts.keyCols = splitCols(o.key)
	switch {
	case o.keyEnc != "":
		e, err := keyenc.ParseEncoding(o.keyEnc)
		if err != nil {
			return ts, usagef("bad key encoding %q: %v", o.keyEnc, err)
		}
		ts.enc = e
	case len(ts.keyCols) > 1:
		ts.enc = keyenc.Encoding{Kind: keyenc.Composite, Parts: make([]keyenc.Kind, len(ts.keyCols))}
		for i := range ts.enc.Parts {
			ts.enc.Parts[i] = keyenc.String
		}
	default:
		ts.enc = keyenc.Encoding{Kind: keyenc.String}
	}
	if n := len(ts.keyCols); n > 1 && (ts.enc.Kind != keyenc.Composite || len(ts.enc.Parts) != n) {
		return ts, usagef("%d key columns need a composite encoding with %d parts, not %s", n, n, ts.enc)
	}
	if ts.enc.Kind == keyenc.Composite && len(ts.keyCols) > 0 && len(ts.keyCols) != len(ts.enc.Parts) {
		return ts, usagef("key encoding %s has %d parts but %d key columns were given", ts.enc, len(ts.enc.Parts), len(ts.keyCols))
	}
	ts.valueFmt = o.valueFmt
	if ts.valueFmt == "" {
		ts.valueFmt = fmtJSON
		if ts.valueCol != "" {
			ts.valueFmt = fmtRaw
		}
	}
	switch ts.valueFmt {
	case fmtRaw:
		if ts.valueCol == "" {
			return ts, usagef("--value-format raw needs --value COLUMN")
		}
	case fmtJSON, fmtMsgpack:
		if ts.valueCol != "" {
			return ts, usagef("--value stores one column raw; it cannot be combined with --value-format %s", ts.valueFmt)
		}
	default:
		return ts, usagef("--value-format must be json, msgpack or raw, not %q", ts.valueFmt)
	}
	switch o.comp {
	case "none", "":
		ts.comp.Kind = engine.CompressNone
	case "zstd":
		ts.comp.Kind = engine.CompressZstd
	case "s2":
		ts.comp.Kind = engine.CompressS2
	default:
		return ts, usagef("--compression must be none, zstd or s2, not %q", o.comp)
	}
	ts.comp.Level = o.level
	ts.comp.Dictionary = o.dict
	switch o.hash {
	case "auto", "":
		ts.hash = engine.HashAuto
	case "on":
		ts.hash = engine.HashOn
	case "off":
		ts.hash = engine.HashOff
	default:
		return ts, usagef("--hash must be auto, on or off, not %q", o.hash)
	}
	return ts, nil
}

// parseSize reads sizes like 64MiB, 1G, 512k or plain bytes.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1000}, {"mb", 1e6}, {"gb", 1e9}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSuffix(t, u.suf), u.m
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(n * float64(mult)), nil
}

// runBuild is build's entry point; it parses its own arguments because table
// flags are positional.
func runBuild(c *ctx, args []string) error {
	o := &buildOpts{}
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.register(fs)
	var out string
	var specs []tableSpec
	_, err := parseFlags(fs, args, func(a string) error {
		if out == "" {
			out = a
			switch strings.ToLower(filepath.Ext(strings.TrimSuffix(out, ".gz"))) {
			case ".csv", ".tsv", ".jsonl", ".ndjson", ".json":
				// "drydb build data.csv out.drydb" would replace the data.
				return usagef("the output %s looks like an input file; the output comes first: drydb build OUT.drydb INPUT...", out)
			}
			return nil
		}
		ts, err := o.spec(a)
		if err != nil {
			return err
		}
		specs = append(specs, ts)
		return nil
	})
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandUsage(c.out, c.cmd, false)
			return flag.ErrHelp
		}
		var ue *usageError
		if errors.As(err, &ue) {
			return err
		}
		return usagef("%v", err)
	}
	if out == "" {
		return usagef("missing OUT file")
	}
	c.path = out // what an error of the build names
	if len(specs) == 0 {
		return usagef("no INPUT files")
	}
	if len(o.indexes) > 0 {
		return usagef("--index after the last input: index flags apply to the input that follows them")
	}
	seen := map[string]string{}
	for _, s := range specs {
		if p, dup := seen[s.name]; dup {
			return usagef("two inputs make table %q (%s and %s); name one with NAME=FILE", s.name, p, s.path)
		}
		seen[s.name] = s.path
	}
	mem, err := parseSize(o.memory)
	if err != nil {
		return usagef("--memory: %v", err)
	}
	meta := map[string][]byte{}
	for _, kv := range o.meta {
		i := strings.Index(kv, "=")
		meta[kv[:i]] = []byte(kv[i+1:])
	}
	for _, s := range specs {
		meta[metaValueFormat+s.name] = []byte(s.valueFmt)
		for _, ix := range s.indexes {
			meta[metaIndexCols+s.name+"."+ix.name] = []byte(strings.Join(ix.cols, ","))
		}
	}
	b := &builder{c: c, o: o, out: out, specs: specs}
	return b.run(mem, meta)
}

type builder struct {
	c     *ctx
	o     *buildOpts
	out   string
	specs []tableSpec
	prog  *progress
	bad   int
}

func (b *builder) run(mem int64, meta map[string][]byte) error {
	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	eb, err := engine.NewBuilder(&engine.BuilderOptions{PageSize: b.o.pageSize, MemoryBudget: mem, TempDir: b.o.tempDir, Metadata: meta})
	if err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "drydb: "))
	}
	defer eb.Close()
	var total int64
	for _, s := range b.specs {
		if s.path != "-" {
			st, err := os.Stat(s.path)
			if err != nil {
				return fmt.Errorf("%s: %w", s.path, errors.Unwrap(err))
			}
			total += st.Size()
		}
	}
	showProgress := !b.o.quiet && (b.o.progress || lineedit.IsTerminal(2))
	if showProgress {
		b.prog = startProgress(b.c.errw, total)
		defer b.prog.stop()
	}
	for i := range b.specs {
		if _, err := b.table(ctx, eb, &b.specs[i]); err != nil {
			return err
		}
		// The key columns are known for sure only once the header is read
		// (the first column by default). The engine reads Metadata when it
		// writes the file, so adding to the map now still lands in it.
		meta[metaKeyColumns+b.specs[i].name] = []byte(strings.Join(b.specs[i].keyCols, ","))
	}
	if b.prog != nil {
		b.prog.setPhase("writing " + b.out)
		b.prog.mu.Lock()
		b.prog.writing = true
		b.prog.mu.Unlock()
	}
	rep, err := eb.BuildToFile(b.out)
	if b.prog != nil {
		b.prog.stop()
	}
	if err != nil {
		return fmt.Errorf("building %s: %s", b.out, strings.TrimPrefix(err.Error(), "drydb: "))
	}
	if b.o.quiet {
		return nil
	}
	return b.summary(rep, time.Since(start))
}

func openInput(path string) (io.ReadCloser, error) {
	var f io.ReadCloser = os.Stdin
	if path != "-" {
		fh, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
		}
		f = fh
	}
	return f, nil
}

type multiCloser struct {
	io.Reader
	closers []io.Closer
}

func (m *multiCloser) Close() error {
	for _, c := range m.closers {
		c.Close()
	}
	return nil
}

// table reads one input into a new table and its indexes.
func (b *builder) table(ctx context.Context, eb *engine.Builder, s *tableSpec) (uint64, error) {
	f, err := openInput(s.path)
	if err != nil {
		return 0, err
	}
	var r io.Reader = f
	if b.prog != nil {
		r = b.prog.reader(f, s.name)
	}
	closer := &multiCloser{Reader: r, closers: []io.Closer{f}}
	defer closer.Close()
	if strings.HasSuffix(strings.ToLower(s.path), ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", s.path, err)
		}
		r = gz
	}
	var rr recordReader
	switch s.format {
	case "jsonl":
		rr = newJSONLReader(s.path, r)
	default:
		cr, err := newCSVReader(s.path, r, s.delimiter, s.noHeader)
		if err != nil {
			return 0, err
		}
		rr = cr
	}
	// The value format is the table's codec: every language's reader
	// decodes JSON and MessagePack rows by default (docs/API.md).
	tb, err := eb.Table(s.name, &engine.TableOptions{Encoding: s.enc, Compression: s.comp, Codec: s.valueFmt, Hash: s.hash})
	if err != nil {
		return 0, usagef("table %s: %s", s.name, strings.TrimPrefix(err.Error(), "drydb: "))
	}
	ibs := make([]*engine.IndexBuilder, len(s.indexes))
	for i, ix := range s.indexes {
		ib, err := tb.AddIndex(ix.name, &engine.IndexOptions{Unique: ix.unique, Encoding: ix.enc})
		if err != nil {
			return 0, usagef("table %s: index %s: %s", s.name, ix.name, strings.TrimPrefix(err.Error(), "drydb: "))
		}
		ibs[i] = ib
	}
	var (
		rows    uint64
		prevKey []byte
		keyHint = make([]int, max(1, len(s.keyCols)))
		valHint int
		ixHints = make([][]int, len(s.indexes))
		val     []byte
		ikeys   = make([][]byte, len(s.indexes))
	)
	for i, ix := range s.indexes {
		ixHints[i] = make([]int, len(ix.cols))
	}
	seen := newKeySet()
	for {
		if rows&1023 == 0 && ctx.Err() != nil {
			return rows, errors.New("interrupted; no output written")
		}
		rec, err := rr.next()
		if err == io.EOF {
			break
		}
		if err == nil {
			if len(s.keyCols) == 0 {
				// The first column is the key by default.
				if len(rec.row) == 0 {
					err = &lineError{s.path, rec.line, "empty row"}
				} else {
					s.keyCols = []string{rec.row[0].Key}
				}
			}
		}
		var key []byte
		del := false
		if err == nil && s.merge {
			del, err = mergeOp(s.path, &rec)
		}
		if err == nil {
			key, err = rowKey(s.path, rec, s.keyCols, s.enc, keyHint)
		}
		if err == nil && del {
			if derr := tb.Delete(key); derr != nil {
				err = &lineError{s.path, rec.line, cleanErr(derr)}
			} else {
				rows++
				continue
			}
		}
		if err == nil {
			val, err = b.rowValue(s, rec, val[:0], &valHint)
		}
		if err == nil {
			for i, ix := range s.indexes {
				ikeys[i], err = indexKey(s.path, rec, ix, ixHints[i])
				if err != nil {
					break
				}
			}
		}
		if err == nil && !b.o.sorted && !s.merge {
			err = seen.check(s.path, rec.line, key, s.enc)
		}
		if err == nil && b.o.sorted && rows > 0 {
			switch c := bytes.Compare(prevKey, key); {
			case c == 0:
				err = &lineError{s.path, rec.line, fmt.Sprintf("duplicate key %s", keyText(s.enc, key))}
			case c > 0:
				err = &lineError{s.path, rec.line, fmt.Sprintf("key %s is out of order (--sorted): it sorts before the previous key %s", keyText(s.enc, key), keyText(s.enc, prevKey))}
			}
		}
		if err == nil {
			if aerr := tb.Append(key, val); aerr != nil {
				err = &lineError{s.path, rec.line, cleanErr(aerr)}
			}
		}
		if err == nil {
			for i, ib := range ibs {
				if ikeys[i] == nil {
					continue
				}
				if aerr := ib.Add(ikeys[i], key); aerr != nil {
					err = &lineError{s.path, rec.line, fmt.Sprintf("index %s: %s", s.indexes[i].name, cleanErr(aerr))}
					break
				}
			}
		}
		if err != nil {
			var le *lineError
			if !errors.As(err, &le) {
				return rows, err
			}
			if !b.o.skipBad {
				return rows, fmt.Errorf("%v (use --skip-bad to skip bad lines); no output written", le)
			}
			b.bad++
			if b.bad <= b.o.maxErrors {
				if b.prog != nil {
					b.prog.clear()
				}
				fmt.Fprintf(b.c.errw, "drydb: skipped %v\n", le)
			}
			continue
		}
		if b.o.sorted {
			prevKey = append(prevKey[:0], key...)
		}
		rows++
		if b.prog != nil {
			b.prog.rows.Add(1)
		}
	}
	return rows, nil
}

// cellString is a column value as text for parsing as a key: strings as they
// are, JSON numbers and booleans by their text; null and missing are absent.
func cellString(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case json.Number:
		return string(x), true
	case bool:
		return strconv.FormatBool(x), true
	}
	b, err := msgpack.AppendJSON(nil, v)
	if err != nil {
		return "", false
	}
	return string(b), true
}

func rowKey(file string, rec record, cols []string, enc keyenc.Encoding, hints []int) ([]byte, error) {
	texts := make([]string, len(cols))
	for i, col := range cols {
		v, ok := lookup(rec.row, col, &hints[i])
		if !ok {
			return nil, &lineError{file, rec.line, fmt.Sprintf("no key column %q", col)}
		}
		t, ok := cellString(v)
		if !ok {
			return nil, &lineError{file, rec.line, fmt.Sprintf("key column %q is null", col)}
		}
		texts[i] = t
	}
	k, err := encodeColumns(enc, texts)
	if err != nil {
		return nil, &lineError{file, rec.line, fmt.Sprintf("key %s: %s", strings.Join(cols, ","), cleanErr(err))}
	}
	return k, nil
}

// indexKey returns the row's key for index ix, or nil when one of its
// columns is empty, null or missing: such rows are left out of the index, as
// SQL leaves NULLs out of unique constraints.
func indexKey(file string, rec record, ix indexSpec, hints []int) ([]byte, error) {
	texts := make([]string, len(ix.cols))
	for i, col := range ix.cols {
		v, ok := lookup(rec.row, col, &hints[i])
		if !ok {
			return nil, nil
		}
		t, ok := cellString(v)
		if !ok || t == "" {
			return nil, nil
		}
		texts[i] = t
	}
	k, err := encodeColumns(ix.enc, texts)
	if err != nil {
		return nil, &lineError{file, rec.line, fmt.Sprintf("index %s: %s", ix.name, cleanErr(err))}
	}
	return k, nil
}

func (b *builder) rowValue(s *tableSpec, rec record, dst []byte, hint *int) ([]byte, error) {
	switch s.valueFmt {
	case fmtRaw:
		v, ok := lookup(rec.row, s.valueCol, hint)
		if !ok {
			return nil, &lineError{s.path, rec.line, fmt.Sprintf("no value column %q", s.valueCol)}
		}
		t, _ := cellString(v)
		return append(dst, t...), nil
	}
	row := rec.row
	if s.infer && s.format != "jsonl" {
		typed := make(msgpack.Map, len(row))
		for i, kv := range row {
			typed[i] = msgpack.KV{Key: kv.Key, Value: inferType(kv.Value.(string))}
		}
		row = typed
	}
	var err error
	if s.valueFmt == fmtMsgpack {
		dst, err = msgpack.Append(dst, row)
	} else {
		dst, err = msgpack.AppendJSON(dst, row)
	}
	if err != nil {
		return nil, &lineError{s.path, rec.line, err.Error()}
	}
	return dst, nil
}

func (b *builder) summary(rep *engine.Report, took time.Duration) error {
	w := b.c.out
	var rows uint64
	for _, t := range rep.Tables {
		rows += t.Rows
	}
	if b.o.jsonOut {
		tables := []map[string]any{}
		for i, t := range rep.Tables {
			m := map[string]any{"name": t.Name, "rows": t.Rows, "bytes": t.Bytes, "pages": t.Pages}
			if i < len(b.specs) {
				m["key_encoding"] = b.specs[i].enc.String()
				m["value_format"] = b.specs[i].valueFmt
			}
			ixs := []map[string]any{}
			for _, ix := range t.Indexes {
				ixs = append(ixs, map[string]any{"name": ix.Name, "entries": ix.Rows, "bytes": ix.Bytes})
			}
			m["indexes"] = ixs
			tables = append(tables, m)
		}
		return writeJSON(w, map[string]any{"output": b.out, "bytes": rep.Bytes, "rows": rows, "skipped": b.bad, "seconds": took.Seconds(), "tables": tables})
	}
	fmt.Fprintf(w, "built %s: %d tables, %d rows, %s in %s\n", b.out, len(rep.Tables), rows, humanBytes(float64(rep.Bytes)), took.Round(time.Millisecond))
	for _, t := range rep.Tables {
		var s *tableSpec
		for i := range b.specs {
			if b.specs[i].name == t.Name {
				s = &b.specs[i]
			}
		}
		line := fmt.Sprintf("  %-16s %10d rows  %10s", t.Name, t.Rows, humanBytes(float64(t.Bytes)))
		if s != nil {
			line += fmt.Sprintf("  key %s %s, values %s", strings.Join(s.keyCols, ","), s.enc, s.valueFmt)
			if s.comp.Kind != engine.CompressNone {
				line += ", " + compressionText(s.comp)
			}
		}
		fmt.Fprintln(w, line)
		for _, ix := range t.Indexes {
			fmt.Fprintf(w, "    index %-10s %10d entries  %10s\n", ix.Name, ix.Rows, humanBytes(float64(ix.Bytes)))
		}
	}
	if b.bad > 0 {
		fmt.Fprintf(w, "skipped %d bad lines\n", b.bad)
	}
	return nil
}

// cleanErr drops the package prefixes from an engine error for a message
// that already says where the problem is.
func cleanErr(err error) string {
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "drydb: "), "bad key: ")
}

// keySet finds a repeated key while the input is read, so that it is
// reported as FILE:LINE (and skipped with --skip-bad) rather than by the
// build after sorting, which knows no lines. It keeps a 64-bit hash of each
// key and the line it came from (about 16 bytes a row; --sorted needs none,
// it compares neighbours). Two different keys share a hash with probability
// about rows²/2⁶⁵ (3e-8 for a million rows).
type keySet struct {
	seed  maphash.Seed
	lines map[uint64]int
}

func newKeySet() *keySet { return &keySet{seed: maphash.MakeSeed(), lines: map[uint64]int{}} }

func (ks *keySet) check(file string, line int, key []byte, enc keyenc.Encoding) error {
	h := maphash.Bytes(ks.seed, key)
	if first, dup := ks.lines[h]; dup {
		return &lineError{file, line, fmt.Sprintf("duplicate key %s (first on line %d)", keyText(enc, key), first)}
	}
	ks.lines[h] = line
	return nil
}
