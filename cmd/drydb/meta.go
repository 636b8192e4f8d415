package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/drydb/drydb/cmd/drydb/internal/msgpack"
	"github.com/drydb/drydb/engine"
)

func runTables(c *ctx) error {
	if len(c.args) > 0 {
		return usagef("unexpected argument %q", c.args[0])
	}
	names := c.db.Tables()
	sort.Strings(names)
	if c.o.json {
		var out []map[string]any
		for _, n := range names {
			t, err := c.db.Table(n)
			if err != nil {
				return err
			}
			out = append(out, map[string]any{"name": n, "rows": t.Len(), "key_encoding": t.Encoding().String(), "indexes": nonNil(t.Indexes())})
		}
		return writeJSON(c.out, out)
	}
	for _, n := range names {
		t, err := c.db.Table(n)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s\t%d rows\t%s", n, t.Len(), t.Encoding())
		if ix := t.Indexes(); len(ix) > 0 {
			line += "\tindexes: " + strings.Join(ix, ", ")
		}
		fmt.Fprintln(c.out, line)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type indexInfo struct {
	Name     string `json:"name"`
	Unique   bool   `json:"unique"`
	Encoding string `json:"key_encoding"`
	Entries  uint64 `json:"entries"`
	Columns  string `json:"columns,omitempty"`
}

type tableInfo struct {
	Name        string      `json:"name"`
	Encoding    string      `json:"key_encoding"`
	Rows        uint64      `json:"rows"`
	Compression string      `json:"compression"`
	HashIndex   bool        `json:"hash_index"`
	ValueFormat string      `json:"value_format,omitempty"`
	KeyColumns  string      `json:"key_columns,omitempty"`
	Indexes     []indexInfo `json:"indexes"`
}

type fileInfo struct {
	Path          string            `json:"path"`
	FormatVersion uint32            `json:"format_version"`
	PageSize      int               `json:"page_size"`
	FileSize      int64             `json:"file_size"`
	Created       string            `json:"created"`
	BuildID       string            `json:"build_id"`
	Tables        []tableInfo       `json:"tables"`
	Metadata      map[string]string `json:"metadata"`
}

func compressionText(cp engine.Compression) string {
	s := cp.Kind.String()
	if cp.Level != 0 {
		s += fmt.Sprintf(" level %d", cp.Level)
	}
	if cp.Dictionary {
		s += " with dictionary"
	}
	if cp.Filter != "" {
		s += " filter " + cp.Filter
	}
	return s
}

func describe(c *ctx) (*fileInfo, error) {
	in := c.db.Info()
	fi := &fileInfo{
		Path:          c.path,
		FormatVersion: in.FormatVersion,
		PageSize:      in.PageSize,
		FileSize:      in.FileSize,
		BuildID:       hex.EncodeToString(in.BuildID[:]),
		Metadata:      map[string]string{},
	}
	if c.shell != nil {
		fi.Path = c.shell.path
	}
	if !in.Created.IsZero() {
		fi.Created = in.Created.UTC().Format("2006-01-02T15:04:05Z")
	}
	for k, v := range in.Metadata {
		if printable(v) {
			fi.Metadata[k] = string(v)
		} else {
			fi.Metadata[k] = "hex:" + hex.EncodeToString(v)
		}
	}
	names := c.db.Tables()
	sort.Strings(names)
	for _, n := range names {
		if c.o.table != "" && n != c.o.table {
			continue
		}
		t, err := c.db.Table(n)
		if err != nil {
			return nil, err
		}
		ti := tableInfo{
			Name: n, Encoding: t.Encoding().String(), Rows: t.Len(),
			Compression: compressionText(t.Compression()),
			HashIndex:   t.Hashed(),
			ValueFormat: valueFormat(c.db, n), // the CLI's record, else the codec any builder recorded
			KeyColumns:  string(in.Metadata[metaKeyColumns+n]),
			Indexes:     []indexInfo{},
		}
		for _, xn := range t.Indexes() {
			ix, err := t.Index(xn)
			if err != nil {
				return nil, err
			}
			ti.Indexes = append(ti.Indexes, indexInfo{Name: xn, Unique: ix.Unique(), Encoding: ix.Encoding().String(), Entries: ix.Len(),
				Columns: string(in.Metadata[metaIndexCols+n+"."+xn])})
		}
		fi.Tables = append(fi.Tables, ti)
	}
	if c.o.table != "" && len(fi.Tables) == 0 {
		_, err := c.table()
		return nil, err
	}
	return fi, nil
}

func runInfo(c *ctx) error {
	if len(c.args) > 0 {
		return usagef("unexpected argument %q", c.args[0])
	}
	fi, err := describe(c)
	if err != nil {
		return err
	}
	if c.o.json {
		return writeJSON(c.out, fi)
	}
	w := c.out
	fmt.Fprintf(w, "file:           %s\n", fi.Path)
	fmt.Fprintf(w, "format version: %d\n", fi.FormatVersion)
	fmt.Fprintf(w, "page size:      %d\n", fi.PageSize)
	fmt.Fprintf(w, "file size:      %s (%d bytes)\n", humanBytes(float64(fi.FileSize)), fi.FileSize)
	if fi.Created != "" {
		fmt.Fprintf(w, "created:        %s\n", fi.Created)
	}
	fmt.Fprintf(w, "build id:       %s\n", fi.BuildID)
	if m := c.db.Manifest(); m != nil {
		fmt.Fprintf(w, "shards:         %d (a manifest; the rest describes its first shard and the tables over all shards)\n", len(m.Shards))
	}
	fmt.Fprintf(w, "tables:         %d\n", len(fi.Tables))
	for _, t := range fi.Tables {
		fmt.Fprintf(w, "\ntable %s\n", t.Name)
		fmt.Fprintf(w, "  key encoding: %s\n", t.Encoding)
		if t.KeyColumns != "" {
			fmt.Fprintf(w, "  key columns:  %s\n", t.KeyColumns)
		}
		fmt.Fprintf(w, "  rows:         %d\n", t.Rows)
		if m := c.db.Manifest(); m != nil {
			for _, mt := range m.Tables {
				if mt.Name == t.Name {
					fmt.Fprintf(w, "  partition:    %s, %d parts\n", mt.Partition, len(mt.Parts))
				}
			}
		}
		fmt.Fprintf(w, "  compression:  %s\n", t.Compression)
		fmt.Fprintf(w, "  hash index:   %s\n", map[bool]string{true: "yes", false: "no"}[t.HashIndex])
		if t.ValueFormat != "" {
			fmt.Fprintf(w, "  values:       %s\n", t.ValueFormat)
		}
		for _, ix := range t.Indexes {
			u := ""
			if ix.Unique {
				u = "unique, "
			}
			cols := ""
			if ix.Columns != "" {
				cols = " on " + ix.Columns
			}
			fmt.Fprintf(w, "  index %s%s (%s%s, %d entries)\n", ix.Name, cols, u, ix.Encoding, ix.Entries)
		}
	}
	var keys []string
	for k := range fi.Metadata {
		if !strings.HasPrefix(k, "drydb.cli.") {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		fmt.Fprintln(w, "\nmetadata")
		for _, k := range keys {
			fmt.Fprintf(w, "  %s = %s\n", k, fi.Metadata[k])
		}
	}
	return nil
}

func humanBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

// treeStat is what stat reports for a table or index. The engine has no
// page-level statistics API yet, so pages, depth and fill are estimated from
// the rows, key and value sizes (marked "estimated" in the output); see the
// Table.Stats request in the CLI's report.
type treeStat struct {
	Name          string  `json:"name"`
	Rows          uint64  `json:"rows"`
	KeyBytes      uint64  `json:"key_bytes"`
	ValueBytes    uint64  `json:"value_bytes"`
	MinKey        int     `json:"min_key_size"`
	MaxKey        int     `json:"max_key_size"`
	AvgKey        float64 `json:"avg_key_size"`
	MaxValue      int     `json:"max_value_size"`
	AvgValue      float64 `json:"avg_value_size"`
	Overflow      uint64  `json:"overflow_values"`
	EstLeafPages  uint64  `json:"est_leaf_pages"`
	EstDepth      int     `json:"est_depth"`
	EstLeafFill   float64 `json:"est_leaf_fill"`
	Compression   string  `json:"compression,omitempty"`
	Estimated     bool    `json:"estimated"`
	Depth         int     `json:"depth,omitempty"`
	LeafPages     uint64  `json:"leaf_pages,omitempty"`
	LeafFill      float64 `json:"leaf_fill,omitempty"`
	IndexesOfName string  `json:"table,omitempty"`
}

// Per-entry overheads assumed for the estimate: a slot, length prefixes and
// the branch's row count.
const (
	leafEntryOverhead   = 6
	branchEntryOverhead = 14
	pageHeader          = 32
)

func statTree(name string, ps int, cur rowCursor, cp string, ix bool) (treeStat, error) {
	s := treeStat{Name: name, MinKey: math.MaxInt, Compression: cp, Estimated: true}
	overflowAt := ps / 4
	var leafBytes uint64
	for ok := cur.First(); ok; ok = cur.Next() {
		k, v := len(cur.Key()), len(cur.Value())
		if ix {
			v = 0
		}
		s.Rows++
		s.KeyBytes += uint64(k)
		s.ValueBytes += uint64(v)
		s.MinKey = min(s.MinKey, k)
		s.MaxKey = max(s.MaxKey, k)
		s.MaxValue = max(s.MaxValue, v)
		inline := v
		if v > overflowAt {
			s.Overflow++
			inline = 12
		}
		leafBytes += uint64(k + inline + leafEntryOverhead)
	}
	if err := cur.Err(); err != nil {
		return s, err
	}
	if s.Rows == 0 {
		s.MinKey = 0
		return s, nil
	}
	s.AvgKey = float64(s.KeyBytes) / float64(s.Rows)
	s.AvgValue = float64(s.ValueBytes) / float64(s.Rows)
	usable := float64(ps - pageHeader)
	s.EstLeafPages = uint64(math.Ceil(float64(leafBytes) / usable))
	if s.EstLeafPages == 0 {
		s.EstLeafPages = 1
	}
	s.EstLeafFill = float64(leafBytes) / (float64(s.EstLeafPages) * usable)
	// Branch entries hold separator keys, usually shorter than full keys;
	// the full average keeps the estimate conservative.
	fan := math.Max(2, usable/(s.AvgKey+branchEntryOverhead))
	s.EstDepth = 1
	for n := float64(s.EstLeafPages); n > 1; n = math.Ceil(n / fan) {
		s.EstDepth++
	}
	return s, nil
}

func runStat(c *ctx) error {
	if len(c.args) > 0 {
		return usagef("unexpected argument %q", c.args[0])
	}
	names := c.db.Tables()
	sort.Strings(names)
	if c.o.table != "" {
		if _, err := c.table(); err != nil {
			return err
		}
		names = []string{c.o.table}
	}
	ps := c.db.Info().PageSize
	var all []treeStat
	for _, n := range names {
		t, err := c.db.Table(n)
		if err != nil {
			return err
		}
		cur := t.NewCursor(engine.Bound{}, engine.Bound{})
		s, err := statTree(n, ps, cur, compressionText(t.Compression()), false)
		cur.Close()
		if err != nil {
			return err
		}
		// Tables report their real depth and leaf count; the fill is the
		// estimated leaf bytes over the real leaves' capacity.
		s.Depth, s.LeafPages, s.Estimated = t.Depth(), t.Leaves(), false
		if s.LeafPages > 0 {
			s.LeafFill = s.EstLeafFill * float64(s.EstLeafPages) / float64(s.LeafPages)
		}
		all = append(all, s)
		for _, xn := range t.Indexes() {
			ix, err := t.Index(xn)
			if err != nil {
				return err
			}
			icur := ix.NewCursor(engine.Bound{}, engine.Bound{})
			s, err := statTree(n+"."+xn, ps, &indexKeyCursor{icur}, "", true)
			icur.Close()
			if err != nil {
				return err
			}
			s.IndexesOfName = n
			all = append(all, s)
		}
		if c.stopped() {
			break
		}
	}
	if c.o.json {
		return writeJSON(c.out, map[string]any{"page_size": ps, "file_size": c.db.Info().FileSize, "trees": all})
	}
	w := c.out
	fmt.Fprintf(w, "page size %d, file size %s\n", ps, humanBytes(float64(c.db.Info().FileSize)))
	for _, s := range all {
		kind := "table"
		if s.IndexesOfName != "" {
			kind = "index"
		}
		fmt.Fprintf(w, "\n%s %s\n", kind, s.Name)
		fmt.Fprintf(w, "  rows:            %d\n", s.Rows)
		if s.Compression != "" {
			fmt.Fprintf(w, "  compression:     %s\n", s.Compression)
		}
		fmt.Fprintf(w, "  key sizes:       min %d, avg %.1f, max %d (%s total)\n", s.MinKey, s.AvgKey, s.MaxKey, humanBytes(float64(s.KeyBytes)))
		if kind == "table" {
			fmt.Fprintf(w, "  value sizes:     avg %.1f, max %d (%s total), %d overflow\n", s.AvgValue, s.MaxValue, humanBytes(float64(s.ValueBytes)), s.Overflow)
		}
		if !s.Estimated {
			fmt.Fprintf(w, "  depth:           %d\n", s.Depth)
			fmt.Fprintf(w, "  leaf pages:      %d\n", s.LeafPages)
			fmt.Fprintf(w, "  leaf page fill:  %.0f%% (entry bytes over leaf capacity, approximate)\n", 100*s.LeafFill)
			continue
		}
		fmt.Fprintf(w, "  depth:           %d (estimated)\n", s.EstDepth)
		fmt.Fprintf(w, "  leaf pages:      %d (estimated, before compression)\n", s.EstLeafPages)
		fmt.Fprintf(w, "  leaf page fill:  %.0f%% (estimated)\n", 100*s.EstLeafFill)
	}
	return nil
}

// indexKeyCursor presents an index cursor's composite entry (index key and
// primary key) as the key, for the size statistics.
type indexKeyCursor struct{ *engine.IndexCursor }

func (i *indexKeyCursor) Key() []byte {
	return append(append([]byte(nil), i.IndexKey()...), i.PrimaryKey()...)
}

func runVerify(c *ctx) error {
	if len(c.args) > 0 {
		return usagef("unexpected argument %q", c.args[0])
	}
	var problems []string
	report := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	if err := c.db.Verify(); err != nil {
		report("%s", strings.TrimPrefix(err.Error(), "drydb: "))
	}
	names := c.db.Tables()
	sort.Strings(names)
	var rows, entries uint64
	for _, n := range names {
		if c.stopped() {
			break
		}
		t, err := c.db.Table(n)
		if err != nil {
			report("table %s: %v", n, err)
			continue
		}
		enc := t.Encoding()
		cur := t.NewCursor(engine.Bound{}, engine.Bound{})
		var prev []byte
		var seen uint64
		for ok := cur.First(); ok; ok = cur.Next() {
			k := cur.Key()
			if seen > 0 && bytes.Compare(prev, k) >= 0 {
				report("table %s: row %d: key %s is not above the previous key", n, seen, keyText(enc, k))
			}
			if err := enc.Validate(k); err != nil {
				report("table %s: row %d: %v", n, seen, err)
			}
			_ = cur.Value()
			prev = append(prev[:0], k...)
			seen++
		}
		if err := cur.Err(); err != nil {
			report("table %s: %v", n, strings.TrimPrefix(err.Error(), "drydb: "))
		}
		cur.Close()
		if seen != t.Len() {
			report("table %s: %d rows read, header says %d", n, seen, t.Len())
		}
		rows += seen
		for _, xn := range t.Indexes() {
			ix, err := t.Index(xn)
			if err != nil {
				report("index %s.%s: %v", n, xn, err)
				continue
			}
			ic := ix.NewCursor(engine.Bound{}, engine.Bound{})
			var got uint64
			var prevIK []byte
			for ok := ic.First(); ok; ok = ic.Next() {
				ik, pk := ic.IndexKey(), ic.PrimaryKey()
				if got > 0 && ix.Unique() && bytes.Equal(prevIK, ik) {
					report("unique index %s.%s: key %s appears twice", n, xn, keyText(ix.Encoding(), ik))
				}
				prevIK = append(prevIK[:0], ik...)
				if _, err := t.Get(pk); err != nil {
					report("index %s.%s: entry %s points at missing row %s: %v", n, xn, keyText(ix.Encoding(), ik), keyText(enc, pk), err)
				}
				got++
			}
			if err := ic.Err(); err != nil {
				report("index %s.%s: %v", n, xn, strings.TrimPrefix(err.Error(), "drydb: "))
			}
			ic.Close()
			if got != ix.Len() {
				report("index %s.%s: %d entries read, header says %d", n, xn, got, ix.Len())
			}
			entries += got
		}
	}
	if c.o.json {
		if problems == nil {
			problems = []string{}
		}
		writeJSON(c.out, map[string]any{"ok": len(problems) == 0, "tables": len(names), "rows": rows, "index_entries": entries, "problems": problems})
	} else if len(problems) == 0 {
		fmt.Fprintf(c.out, "ok: %d tables, %d rows, %d index entries, every page checked\n", len(names), rows, entries)
	} else {
		c.out.Flush()
		for _, p := range problems {
			fmt.Fprintf(c.errw, "drydb: verify: %s\n", p)
		}
		fmt.Fprintf(c.errw, "drydb: verify: %d problems found\n", len(problems))
	}
	if len(problems) > 0 {
		return errSilent
	}
	return nil
}

func setupExport(fs *flag.FlagSet, c *ctx) {
	setupCommon(fs, c)
	fs.StringVar(&c.o.format, "format", "jsonl", "output format: jsonl or csv (export only)")
	fs.StringVar(&c.o.output, "o", "", "write to `FILE` instead of standard output")
	fs.StringVar(&c.o.values, "values", "auto", "how to write raw values: auto, text, hex or json")
	setupLimit(fs, c)
}

// withOutput runs fn writing to -o FILE (created only when fn succeeds, via
// a temporary file renamed into place) or to standard output.
func (c *ctx) withOutput(fn func(w *bufio.Writer) error) error {
	if c.o.output == "" || c.o.output == "-" {
		return fn(c.out)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.o.output), ".drydb-export-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	if err := fn(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.o.output)
}

func runDump(c *ctx) error {
	if len(c.args) > 0 {
		return usagef("unexpected argument %q", c.args[0])
	}
	if c.o.format != "jsonl" {
		return usagef("dump writes JSON Lines; use export --format csv for CSV")
	}
	names := c.db.Tables()
	sort.Strings(names)
	if c.o.table != "" {
		names = []string{c.o.table}
	}
	return c.withOutput(func(w *bufio.Writer) error {
		for _, n := range names {
			c.o.table = n
			t, err := c.table()
			if err != nil {
				return err
			}
			r, err := newRenderer(c, t)
			if err != nil {
				return err
			}
			enc := t.Encoding()
			tn := jsonString(n)
			cur := t.NewCursor(engine.Bound{}, engine.Bound{})
			for n, ok := int64(0), cur.First(); ok && !c.stopped() && c.within(n); n, ok = n+1, cur.Next() {
				w.WriteString(`{"table":`)
				w.Write(tn)
				w.WriteString(`,"key":`)
				w.Write(keyJSON(enc, cur.Key()))
				w.WriteString(`,"value":`)
				w.Write(r.valueJSON(cur.Value()))
				w.WriteString("}\n")
			}
			err = cur.Err()
			cur.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func runExport(c *ctx) error {
	if len(c.args) > 0 {
		return usagef("unexpected argument %q", c.args[0])
	}
	t, err := c.table()
	if err != nil {
		return err
	}
	r, err := newRenderer(c, t)
	if err != nil {
		return err
	}
	switch c.o.format {
	case "jsonl", "json", "ndjson":
		return c.withOutput(func(w *bufio.Writer) error { return exportJSONL(c, t, r, w) })
	case "csv", "tsv":
		return c.withOutput(func(w *bufio.Writer) error { return exportCSV(c, t, r, w, c.o.format == "tsv") })
	}
	return usagef("--format must be jsonl or csv, not %q", c.o.format)
}

// exportJSONL writes rows stored as JSON or MessagePack objects as those
// objects, so "drydb build" can read the export back; other rows as
// {"key":...,"value":...}.
func exportJSONL(c *ctx, t *engine.Table, r *renderer, w *bufio.Writer) error {
	enc := t.Encoding()
	rowish := r.vfmt == fmtJSON || r.vfmt == fmtMsgpack
	cur := t.NewCursor(engine.Bound{}, engine.Bound{})
	defer cur.Close()
	for n, ok := int64(0), cur.First(); ok && !c.stopped() && c.within(n); n, ok = n+1, cur.Next() {
		if rowish {
			if j, ok := r.decodeJSON(cur.Value(), false); ok {
				w.Write(j)
				w.WriteByte('\n')
				continue
			}
		}
		w.WriteString(`{"key":`)
		w.Write(keyJSON(enc, cur.Key()))
		w.WriteString(`,"value":`)
		w.Write(r.valueJSON(cur.Value()))
		w.WriteString("}\n")
	}
	return cur.Err()
}

// rowObject decodes a stored row into an ordered map, or nil when the value
// is not an object.
func rowObject(vfmt string, v []byte) msgpack.Map {
	switch vfmt {
	case fmtMsgpack:
		d, err := msgpack.Decode(v)
		if err != nil {
			return nil
		}
		m, _ := d.(msgpack.Map)
		return m
	case fmtJSON:
		d, err := decodeJSONOrdered(v)
		if err != nil {
			return nil
		}
		m, _ := d.(msgpack.Map)
		return m
	}
	return nil
}

func exportCSV(c *ctx, t *engine.Table, r *renderer, w *bufio.Writer, tsv bool) error {
	enc := t.Encoding()
	cw := csv.NewWriter(w)
	if tsv {
		cw.Comma = '\t'
	}
	cur := t.NewCursor(engine.Bound{}, engine.Bound{})
	defer cur.Close()
	var header []string
	var col map[string]int
	first := true
	for n, ok := int64(0), cur.First(); ok && !c.stopped() && c.within(n); n, ok = n+1, cur.Next() {
		obj := rowObject(r.vfmt, cur.Value())
		if first {
			first = false
			if obj != nil {
				col = map[string]int{}
				for _, kv := range obj {
					col[kv.Key] = len(header)
					header = append(header, kv.Key)
				}
			} else {
				header = []string{"key", "value"}
			}
			if err := cw.Write(header); err != nil {
				return err
			}
		}
		rec := make([]string, len(header))
		if col != nil {
			if obj == nil {
				return fmt.Errorf("row %s is not an object; export it as jsonl", keyText(enc, cur.Key()))
			}
			for _, kv := range obj {
				i, ok := col[kv.Key]
				if !ok {
					return fmt.Errorf("row %s has column %q that the first row lacks; export it as jsonl", keyText(enc, cur.Key()), kv.Key)
				}
				rec[i] = cellText(kv.Value)
			}
		} else {
			rec[0] = keyText(enc, cur.Key())
			rec[1] = r.valueText(cur.Value())
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return cur.Err()
}

// cellText renders one column of a row for CSV: strings as they are, null as
// empty, everything else as JSON.
func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, err := msgpack.AppendJSON(nil, v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
