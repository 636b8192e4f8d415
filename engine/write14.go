package engine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/drydb/drydb/engine/drydb14"
	"github.com/drydb/drydb/engine/keyenc"
)

// Writing DryDB 1.4 files (docs/DRYDB14.md, "Writing 1.4 files"). A 1.4 file
// is written from an open DB: DB.WriteDryDB14 (what `drydb convert --to
// drydb-1.4` does), or by a Builder with Format FormatDryDB14, which builds
// the native file first (in TempDir), then writes it as 1.4 atomically. The
// 1.4 writer itself is engine/drydb14 (write.go).

// File formats a Builder writes (BuilderOptions.Format) and Convert converts
// to.
const (
	FormatNative  = "native"
	FormatDryDB14 = "drydb-1.4"
)

// DryDB14Options configure writing a DryDB 1.4 file: its page size (0: 4096;
// 64 bytes to 1 MiB; pages above 32767 bytes use 1.4's classic metadata),
// whole-file zstd, Eytzinger digests.
type DryDB14Options = drydb14.Options

func checkFormat(format string) error {
	switch format {
	case "", FormatNative, FormatDryDB14:
		return nil
	}
	return fmt.Errorf("%w: unknown file format %q (want %q or %q)", ErrInvalid, format, FormatNative, FormatDryDB14)
}

// SetFormat sets the format the builder writes (as BuilderOptions.Format),
// for callers that make the builder first (the C API). It must come before
// the first Table, whose checks depend on it.
func (b *Builder) SetFormat(format string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	if len(b.tables) > 0 {
		return fmt.Errorf("%w: the format is set before the first table", ErrInvalid)
	}
	b.opts.Format = format
	return nil
}

// check14 refuses, when the builder writes 1.4, a table or index 1.4 cannot
// hold, as soon as it is declared (rather than after the native build): keys
// 1.4 has no type for, and compression other than zstd (S2, page filters,
// zstd dictionaries). c is nil for an index.
func (b *Builder) check14(what string, e keyenc.Encoding, c *Compression) error {
	if b.opts.Format != FormatDryDB14 {
		return nil
	}
	if _, err := drydb14.KeyType(e); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalid, what, err)
	}
	switch {
	case c == nil:
	case c.Kind == CompressS2:
		return fmt.Errorf("%w: %s: DryDB 1.4 has no S2 compression (its only page filter is zstd)", ErrInvalid, what)
	case c.Filter != "":
		return fmt.Errorf("%w: %s: DryDB 1.4 cannot store page filter %q", ErrInvalid, what, c.Filter)
	case c.Dictionary:
		return fmt.Errorf("%w: %s: DryDB 1.4 has no zstd dictionaries", ErrInvalid, what)
	}
	return nil
}

// options14 derives the 1.4 options of a build: the builder's page size, and
// the zstd filter (which 1.4 applies to the whole file) when any table asks
// for zstd.
func (b *Builder) options14() *DryDB14Options {
	o := &DryDB14Options{PageSize: b.ps}
	for _, t := range b.tables {
		if t.opts.Compression.Kind == CompressZstd {
			o.Zstd = true
		}
	}
	return o
}

// build14 builds the native file into TempDir, then writes it as 1.4 to
// write (atomically, for a path).
func (b *Builder) build14(write func(db *DB, o *DryDB14Options) (*drydb14.Report, error)) (*Report, error) {
	o := b.options14()
	fh, err := os.CreateTemp(b.opts.TempDir, "drydb-native-*")
	if err != nil {
		return nil, fmt.Errorf("drydb: creating a temporary file: %w", err)
	}
	defer os.Remove(fh.Name())
	bw := bufio.NewWriterSize(fh, 1<<20)
	rep, err := b.build(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	db, err := Open(fh.Name(), nil)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	r14, err := write(db, o)
	if err != nil {
		return nil, err
	}
	rep.Bytes = uint64(r14.Bytes)
	return rep, nil
}

// WriteDryDB14 writes every table and secondary index of db as a DryDB 1.4
// file at path, atomically (a temporary file beside it, fsync, rename), in
// db's table order. Tables and indexes whose keys 1.4 cannot hold (uint64,
// float64, composite) are refused with an error naming them; nothing is
// written then. Compression of db's tables does not carry over: opts.Zstd
// decides. Memory: 16 bytes a row of the largest indexed table, 8 a page.
func (db *DB) WriteDryDB14(path string, opts *DryDB14Options) (*drydb14.Report, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	if err := replaceable(path); err != nil {
		return nil, err
	}
	var rep *drydb14.Report
	err := writeAtomic(path, func(fh *os.File) (err error) {
		rep, err = write14(fh, db.sources14(), opts)
		return err
	})
	return rep, err
}

// write14 is drydb14.Write with what 1.4 cannot hold reported as ErrInvalid
// (as the builder's declaration-time checks do).
func write14(fh *os.File, ts []drydb14.TableSource, opts *DryDB14Options) (*drydb14.Report, error) {
	rep, err := drydb14.Write(fh, ts, opts)
	if errors.Is(err, drydb14.ErrUnsupported) {
		err = fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return rep, err
}

// writeDryDB14To writes db as 1.4 through a temporary file into w (the 1.4
// writer back-patches, so it cannot write a stream directly).
func (db *DB) writeDryDB14To(w io.Writer, dir string, opts *DryDB14Options) (*drydb14.Report, error) {
	fh, err := os.CreateTemp(dir, "drydb-1.4-*")
	if err != nil {
		return nil, fmt.Errorf("drydb: creating a temporary file: %w", err)
	}
	defer os.Remove(fh.Name())
	defer fh.Close()
	rep, err := write14(fh, db.sources14(), opts)
	if err != nil {
		return nil, err
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if _, err := io.Copy(w, fh); err != nil {
		return nil, fmt.Errorf("drydb: writing: %w", err)
	}
	return rep, nil
}

// sources14 gives db's tables to the 1.4 writer: rows in key order, and each
// index's entries in (index key, primary key) order with the row number of
// their primary key.
func (db *DB) sources14() []drydb14.TableSource {
	ts := make([]drydb14.TableSource, len(db.tables))
	for i, t := range db.tables {
		ts[i] = drydb14.TableSource{Name: t.name, Key: t.enc, Rows: func(yield func(k, v []byte) error) error {
			c := t.NewCursor(All, All)
			defer c.Close()
			for ok := c.First(); ok; ok = c.Next() {
				if err := yield(c.Key(), c.Value()); err != nil {
					return err
				}
			}
			return c.Err()
		}}
		for _, ix := range t.indexes {
			ts[i].Indexes = append(ts[i].Indexes, drydb14.IndexSource{Name: ix.name, Unique: ix.unique, Key: ix.enc,
				Entries: func(yield func(ikey []byte, row uint64) error) error {
					c := ix.NewCursor(All, All)
					defer c.Close()
					for ok := c.First(); ok; ok = c.Next() {
						row, err := t.Rank(c.PrimaryKey())
						if err != nil {
							return err
						}
						if err := yield(c.IndexKey(), row); err != nil {
							return err
						}
					}
					return c.Err()
				}})
		}
	}
	return ts
}

// ConvertOptions configure Convert.
type ConvertOptions struct {
	// To is the output format: FormatNative or FormatDryDB14.
	To string
	// PageSize of the output: 0 keeps the source's for native output (a
	// 1.4 source opens as a 4096-byte-page image) and means 4096 for 1.4.
	PageSize int
	// Compression of the output: "" keeps it (native: each table's own; 1.4:
	// zstd when a source table is compressed or the source is a zstd 1.4
	// file), "none" or "zstd" (1.4: the whole file; native: every table).
	Compression string
	// Eytzinger stores 1.4 digests in Eytzinger order (1.4 output only).
	Eytzinger bool
	// TempDir and MemoryBudget are as in BuilderOptions (native output).
	TempDir      string
	MemoryBudget int64
}

// Convert writes the database at in (native or DryDB 1.4) to out in
// opts.To's format, atomically; the contents (tables, rows, indexes) are
// the same, the bytes are not (layouts and compressors differ). Native
// output is a merge build of the opened source with no changes. in and out
// may be the same path.
func Convert(in, out string, opts *ConvertOptions) error {
	var o ConvertOptions
	if opts != nil {
		o = *opts
	}
	if o.To != FormatNative && o.To != FormatDryDB14 {
		return fmt.Errorf("%w: convert to %q: want %q or %q", ErrInvalid, o.To, FormatNative, FormatDryDB14)
	}
	var comp *Compression
	switch o.Compression {
	case "":
	case "none":
		comp = &Compression{}
	case "zstd":
		comp = &Compression{Kind: CompressZstd}
	default:
		return fmt.Errorf("%w: convert: compression %q: want none or zstd", ErrInvalid, o.Compression)
	}
	src, err := Open(in, nil)
	if err != nil {
		return err
	}
	defer src.Close()
	if o.To == FormatDryDB14 {
		zstd := comp != nil && comp.Kind == CompressZstd
		if comp == nil {
			zstd = bytes.Contains(src.info.Metadata[Source14], []byte(drydb14.ZstdFilter))
			for _, t := range src.tables {
				zstd = zstd || t.comp.Kind != CompressNone
			}
		}
		_, err := src.WriteDryDB14(out, &DryDB14Options{PageSize: o.PageSize, Zstd: zstd, Eytzinger: o.Eytzinger})
		return err
	}
	// A native file converted from 1.4 is not a translated image: it does
	// not keep the metadata that says so.
	meta := map[string][]byte{}
	for k, v := range src.info.Metadata {
		if k != Source14 {
			meta[k] = v
		}
	}
	b, err := NewMergeBuilder(src, &BuilderOptions{PageSize: o.PageSize, TempDir: o.TempDir, MemoryBudget: o.MemoryBudget, Metadata: meta})
	if err != nil {
		return err
	}
	defer b.Close()
	if comp != nil {
		for _, t := range src.tables {
			if _, err := b.Table(t.name, &TableOptions{Encoding: t.enc, Compression: *comp}); err != nil {
				return err
			}
		}
	}
	_, err = b.BuildToFile(out)
	return err
}
