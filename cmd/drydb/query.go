package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

var commandHelp = map[string]string{
	"get": `Keys are written as the table's encoding prints them: 42 for int64,
1.5 for float64, a UUID or ULID in its usual text form, (1,"a") for a
composite key, plain text for string keys, and \xNN escapes or hex:0102ff
for raw bytes. A missing key is reported on stderr and makes the exit
status 1. With --index NAME the keys are index keys and every matching row is
printed (primary key and value).
`,
	"scan": `Rows print as KEY<TAB>VALUE. Values print as text when printable and as
hex:-prefixed hex otherwise; rows stored as JSON or MessagePack by "drydb build"
print as JSON. --offset is a positioned seek (O(log n)), not a skip loop.
`,
	"range": `LO and HI are positional shorthands for --from LO --before HI ("" for no
bound): half-open [LO, HI), as in every language (docs/API.md). The flags
give inclusive (--from, --to) or exclusive (--after, --before) bounds;
--reverse lists from the high end. On a composite table a bound of fewer
parts, ("a"), is a key prefix: --from ("a") starts at the first key with it,
--to ("a") runs through the last.
`,
	"prefix": `For string and bytes tables PREFIX is the leading text or bytes of the key.
For composite tables it is a tuple of leading components: (1) or (1,"a").
`,
	"verify": `Reads the whole file: every checksum, every page's bounds and links, the key
order and row counts of every table and index, and that every index entry
points at an existing row. Exits 1 when anything is wrong.
`,
	"export": `--format jsonl (default) writes one JSON object per row: the row itself for
tables built from JSON or MessagePack rows, {"key":...,"value":...}
otherwise. --format csv writes a header and one line per row, the columns of
the row objects (or key,value).
`,
}

func setupValueFlags(fs *flag.FlagSet, c *ctx) {
	fs.StringVar(&c.o.values, "values", "auto", "how to print values: auto, text, hex or json")
}

func setupGet(fs *flag.FlagSet, c *ctx) {
	setupCommon(fs, c)
	setupValueFlags(fs, c)
	fs.StringVar(&c.o.index, "index", "", "look keys up in index `NAME`")
	fs.StringVar(&c.o.index, "i", "", "same as --index")
}

func setupScan(fs *flag.FlagSet, c *ctx) {
	setupCommon(fs, c)
	setupValueFlags(fs, c)
	fs.StringVar(&c.o.index, "index", "", "walk index `NAME` instead of the table (bounds are index keys)")
	fs.StringVar(&c.o.index, "i", "", "same as --index")
	fs.Uint64Var(&c.o.offset, "offset", 0, "skip the first `N` rows (a positioned seek, O(log n))")
	setupLimit(fs, c)
	fs.BoolVar(&c.o.reverse, "reverse", false, "descending key order")
	fs.BoolVar(&c.o.reverse, "r", false, "same as --reverse")
	fs.StringVar(&c.o.from, "from", "", "lower bound `KEY`, inclusive")
	fs.StringVar(&c.o.after, "after", "", "lower bound `KEY`, exclusive")
	fs.StringVar(&c.o.to, "to", "", "upper bound `KEY`, inclusive")
	fs.StringVar(&c.o.before, "before", "", "upper bound `KEY`, exclusive")
	fs.StringVar(&c.o.prefix, "prefix", "", "only keys starting with `PREFIX`")
}

// setupLimit registers --limit/-n (listings, dump and export).
func setupLimit(fs *flag.FlagSet, c *ctx) {
	fs.Int64Var(&c.o.limit, "limit", -1, "print at most `N` rows (-1: all; dump: per table)")
	fs.Int64Var(&c.o.limit, "n", -1, "same as --limit")
}

// within reports whether a listing that has printed n rows may print more.
func (c *ctx) within(n int64) bool { return c.o.limit < 0 || n < c.o.limit }

// keySpace is what a scan walks: the table itself or one of its indexes.
type keySpace struct {
	t   *engine.Table
	ix  *engine.Index
	enc keyenc.Encoding
}

func (c *ctx) keySpace() (*keySpace, error) {
	t, err := c.table()
	if err != nil {
		return nil, err
	}
	ks := &keySpace{t: t, enc: t.Encoding()}
	if c.o.index != "" {
		ix, err := t.Index(c.o.index)
		if err != nil {
			if errors.Is(err, engine.ErrNoIndex) {
				return nil, fmt.Errorf("table %q has no index %q (indexes: %s)", t.Name(), c.o.index, listOrNone(t.Indexes()))
			}
			return nil, err
		}
		ks.ix = ix
		ks.enc = ix.Encoding()
	}
	return ks, nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// parseKey parses key text by the encoding, naming the encoding on failure.
func parseKey(enc keyenc.Encoding, text string) ([]byte, error) {
	k, err := keyenc.ParseKey(enc, text)
	if err != nil {
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "drydb: "), "bad key: ")
		return nil, fmt.Errorf("bad %s key: %s", enc, msg)
	}
	return k, nil
}

// parsePrefix turns prefix text into key bytes: the text itself for string
// and bytes keys, the encoded leading components for composite keys.
func parsePrefix(enc keyenc.Encoding, text string) ([]byte, error) {
	switch enc.Kind {
	case keyenc.String, keyenc.Bytes:
		return parseKey(enc, text)
	case keyenc.Composite:
		return parseCompositePrefix(enc, text)
	}
	return nil, usagef("prefix needs a string, bytes or composite key; this one is %s (use range)", enc)
}

// bounds turns the range flags (and positional LO HI for range and count)
// into engine bounds.
func (c *ctx) bounds(enc keyenc.Encoding) (lo, hi engine.Bound, prefix []byte, err error) {
	o := &c.o
	args := c.args
	switch c.cmd.name {
	case "range", "count":
		if len(args) > 2 {
			return lo, hi, nil, usagef("too many arguments")
		}
		if len(args) >= 1 && args[0] != "" {
			if o.hasFrom || o.hasAfter {
				return lo, hi, nil, usagef("give the lower bound once")
			}
			o.from, o.hasFrom = args[0], true
		}
		if len(args) == 2 && args[1] != "" {
			if o.hasTo || o.hasBefore {
				return lo, hi, nil, usagef("give the upper bound once")
			}
			o.before, o.hasBefore = args[1], true
		}
	case "prefix":
		if len(args) != 1 {
			return lo, hi, nil, usagef("prefix takes one PREFIX")
		}
		if o.hasPrefix {
			return lo, hi, nil, usagef("give the prefix once")
		}
		o.prefix, o.hasPrefix = args[0], true
	default:
		if len(args) > 0 {
			return lo, hi, nil, usagef("unexpected argument %q", args[0])
		}
	}
	if o.hasFrom && o.hasAfter || o.hasTo && o.hasBefore {
		return lo, hi, nil, usagef("give at most one lower and one upper bound")
	}
	if o.hasPrefix {
		if o.hasFrom || o.hasAfter || o.hasTo || o.hasBefore {
			return lo, hi, nil, usagef("--prefix cannot be combined with other bounds")
		}
		p, err := parsePrefix(enc, o.prefix)
		if err != nil {
			return lo, hi, nil, err
		}
		lo, hi = engine.PrefixBounds(p)
		return lo, hi, p, nil
	}
	mk := func(has bool, text string, kind engine.BoundKind, lower bool, b *engine.Bound) error {
		if !has {
			return nil
		}
		k, err := parseKey(enc, text)
		if err != nil {
			return err
		}
		*b = engine.Bound{Kind: kind, Key: k}
		if enc.Kind == keyenc.Composite {
			// A tuple of fewer parts ("a") is a key prefix: every key with
			// it counts as equal to it (a full key is its own only match).
			*b = engine.PrefixBound(k, kind, lower)
		}
		return nil
	}
	for _, e := range []error{
		mk(o.hasFrom, o.from, engine.Inclusive, true, &lo),
		mk(o.hasAfter, o.after, engine.Exclusive, true, &lo),
		mk(o.hasTo, o.to, engine.Inclusive, false, &hi),
		mk(o.hasBefore, o.before, engine.Exclusive, false, &hi),
	} {
		if e != nil {
			return lo, hi, nil, e
		}
	}
	return lo, hi, nil, nil
}

// rowCursor is the part of the table and index cursors a listing needs.
type rowCursor interface {
	First() bool
	Last() bool
	Next() bool
	Prev() bool
	SeekRow(n uint64) bool
	Row() uint64
	Key() []byte
	Value() []byte
	Err() error
	Close()
}

// cursor opens a cursor over the range, or over the keys starting with
// prefix when it is set (an index escapes its keys, so an index prefix
// cannot be expressed as bounds and has its own constructor).
func (ks *keySpace) cursor(lo, hi engine.Bound, prefix []byte) rowCursor {
	if ks.ix != nil {
		if prefix != nil {
			return ks.ix.Prefix(prefix)
		}
		return ks.ix.NewCursor(lo, hi)
	}
	return ks.t.NewCursor(lo, hi)
}

// position puts the cursor on the first row of the listing: offset rows in
// from the start (or the end when reversed), found by row number so a large
// offset costs one descent rather than a walk.
func position(cur rowCursor, reverse bool, offset uint64) bool {
	if reverse {
		if !cur.Last() {
			return false
		}
		if offset == 0 {
			return true
		}
		r := cur.Row()
		if offset > r {
			return false
		}
		return cur.SeekRow(r - offset)
	}
	if !cur.First() {
		return false
	}
	if offset == 0 {
		return true
	}
	return cur.SeekRow(cur.Row() + offset)
}

func runScan(c *ctx) error {
	ks, err := c.keySpace()
	if err != nil {
		return err
	}
	lo, hi, prefix, err := c.bounds(ks.enc)
	if err != nil {
		return err
	}
	r, err := newRenderer(c, ks.t)
	if err != nil {
		return err
	}
	cur := ks.cursor(lo, hi, prefix)
	defer cur.Close()
	what := c.cmd.name // keys, values or a full listing
	ok := position(cur, c.o.reverse, c.o.offset)
	for n := int64(0); ok && c.within(n); n++ {
		if c.stopped() {
			break
		}
		c.printRow(r, ks, cur, what)
		if c.o.reverse {
			ok = cur.Prev()
		} else {
			ok = cur.Next()
		}
	}
	if ok && c.o.implicitLimit && cur.Err() == nil {
		c.out.Flush()
		fmt.Fprintf(c.errw, "(first %d rows; --limit N for more, --limit -1 for all)\n", c.o.limit)
	}
	return cur.Err()
}

// printRow prints the cursor's row. For an index the line is
// INDEXKEY<TAB>PRIMARYKEY<TAB>VALUE.
func (c *ctx) printRow(r *renderer, ks *keySpace, cur rowCursor, what string) {
	w := c.out
	var ikey, pk []byte
	if ic, ok := cur.(*engine.IndexCursor); ok {
		ikey, pk = ic.IndexKey(), ic.PrimaryKey()
	} else {
		pk = cur.Key()
	}
	tenc := ks.t.Encoding()
	if c.o.json {
		w.WriteByte('{')
		if ikey != nil {
			w.WriteString(`"index_key":`)
			w.Write(keyJSON(ks.enc, ikey))
			w.WriteByte(',')
		}
		if what != "values" {
			w.WriteString(`"key":`)
			w.Write(keyJSON(tenc, pk))
		}
		if what != "keys" {
			if what != "values" {
				w.WriteByte(',')
			}
			w.WriteString(`"value":`)
			w.Write(r.valueJSON(cur.Value()))
		}
		w.WriteString("}\n")
		return
	}
	var parts []string
	if ikey != nil && what != "values" {
		parts = append(parts, keyText(ks.enc, ikey))
	}
	if what != "values" {
		parts = append(parts, keyText(tenc, pk))
	}
	if what != "keys" {
		parts = append(parts, r.valueText(cur.Value()))
	}
	w.WriteString(strings.Join(parts, "\t"))
	w.WriteByte('\n')
}

func runCount(c *ctx) error {
	ks, err := c.keySpace()
	if err != nil {
		return err
	}
	lo, hi, prefix, err := c.bounds(ks.enc)
	if err != nil {
		return err
	}
	var n uint64
	switch {
	case ks.ix != nil && prefix != nil:
		cur := ks.ix.Prefix(prefix)
		n, err = cur.Count()
		cur.Close()
	case ks.ix != nil:
		n, err = ks.ix.Count(lo, hi)
	default:
		n, err = ks.t.Count(lo, hi)
	}
	if err != nil {
		return err
	}
	if c.o.json {
		fmt.Fprintf(c.out, "{\"count\":%d}\n", n)
	} else {
		fmt.Fprintln(c.out, n)
	}
	return nil
}

func runGet(c *ctx) error {
	if len(c.args) == 0 {
		return usagef("missing KEY")
	}
	ks, err := c.keySpace()
	if err != nil {
		return err
	}
	r, err := newRenderer(c, ks.t)
	if err != nil {
		return err
	}
	missing := 0
	for _, text := range c.args {
		k, err := parseKey(ks.enc, text)
		if err != nil {
			return err
		}
		found := false
		if ks.ix != nil {
			// Every row under the index key, for unique and non-unique
			// indexes alike.
			cur := ks.ix.GetAll(k)
			for ok := cur.First(); ok && !c.stopped(); ok = cur.Next() {
				found = true
				c.printRow(r, ks, cur, "get")
			}
			err = cur.Err()
			cur.Close()
			if err != nil {
				return err
			}
		} else {
			v, err := ks.t.Get(k)
			switch {
			case err == nil:
				found = true
				switch {
				case c.o.json:
					fmt.Fprintf(c.out, "{\"key\":%s,\"value\":%s}\n", keyJSON(ks.enc, k), r.valueJSON(v))
				case len(c.args) > 1:
					// With several keys each line says which key it is.
					fmt.Fprintf(c.out, "%s\t%s\n", keyText(ks.enc, k), r.valueText(v))
				default:
					fmt.Fprintln(c.out, r.valueText(v))
				}
			case errors.Is(err, engine.ErrNotFound):
			default:
				return err
			}
		}
		if !found {
			missing++
			if c.o.json {
				fmt.Fprintf(c.out, "{\"key\":%s,\"found\":false}\n", keyJSON(ks.enc, k))
			}
			c.out.Flush()
			fmt.Fprintf(c.errw, "drydb: not found: %s\n", text)
		}
	}
	if missing > 0 {
		return errSilent
	}
	return nil
}

func runUse(c *ctx) error {
	if len(c.args) != 1 {
		return usagef("use TABLE")
	}
	if _, err := c.db.Table(c.args[0]); err != nil {
		c.o.table = c.args[0]
		_, err = c.table()
		return err
	}
	c.shell.table = c.args[0]
	return nil
}
