package engine

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"unicode/utf8"

	"github.com/drydb/drydb/engine/drydb14"
	f "github.com/drydb/drydb/engine/internal/format"
	"github.com/drydb/drydb/internal/osfile"
)

// A DryDB 1.4 file (docs/DRYDB14.md) opens through the same calls as a native one: Open and
// OpenBytes recognise its magic, read and check the whole file (engine/drydb14), and build the
// same contents as a native image in memory allocated outside the Go heap (so that the C API can
// hand out values zero-copy). Every read then runs on the native image: counts, ranks and
// verify cost what they cost on a native file. Open costs one pass over the 1.4 file and a
// native build; the image takes about the native file's size in memory, for as long as the DB
// is open. `drydb convert` (a native file on disk) avoids paying that at every open.

// Source14 is the metadata key under which a database translated from a DryDB 1.4 file says so
// (Info().Metadata): its value describes the 1.4 file (size, page size, filter). Info's other
// fields describe the image (FileSize is the image's size).
const Source14 = "drydb.source"

// image14 translates the 1.4 file in data into a native image. free releases the image.
func image14(data []byte) (img []byte, free func(), err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			img, free, err = nil, nil, faultError(r)
		}
	}()
	fl, err := drydb14.Parse(data)
	if err != nil {
		return nil, nil, err14(err)
	}
	defer fl.Close()
	src := fmt.Sprintf("DryDB 1.4, %d bytes, page size %d", len(data), fl.PageSize)
	if fl.Filter != "" {
		src += ", filter " + fl.Filter
	}
	tds := make([]*drydb14.TableData, len(fl.Tables))
	natKeys := make([][][]byte, len(fl.Tables)) // per table, the native key of every row
	maxKey := 0
	for i := range fl.Tables {
		t := &fl.Tables[i]
		if tds[i], err = fl.ReadTable(t); err != nil {
			return nil, nil, err14(err)
		}
		ks := make([][]byte, len(tds[i].Rows))
		for j, r := range tds[i].Rows {
			ks[j] = t.Primary.Enc.AppendNative(nil, r.Key)
			maxKey = max(maxKey, len(ks[j]))
		}
		natKeys[i] = ks
		for _, es := range tds[i].Indexes {
			for _, e := range es {
				// An index entry is stored as escaped index key, 2-byte terminator, primary key.
				maxKey = max(maxKey, len(e.Key)+bytes.Count(e.Key, []byte{0})+2+len(ks[e.Row]))
			}
		}
	}
	ps := f.DefaultPageSize
	for ps < f.MaxPageSize && f.MaxKeySize(ps) < maxKey {
		ps *= 2
	}
	b, err := NewBuilder(&BuilderOptions{PageSize: ps, Metadata: map[string][]byte{Source14: []byte(src)}})
	if err != nil {
		return nil, nil, err
	}
	defer b.Close()
	for i := range fl.Tables {
		if err := addTable14(b, &fl.Tables[i], tds[i], natKeys[i]); err != nil {
			return nil, nil, fmt.Errorf("drydb: DryDB 1.4 table %q cannot be held by drydb: %w", fl.Tables[i].Name, err)
		}
	}
	w := &allocWriter{}
	if _, err := b.BuildTo(w); err != nil {
		w.free()
		return nil, nil, fmt.Errorf("drydb: translating DryDB 1.4 file: %w", err)
	}
	return w.mem[:w.n:w.n], w.free, nil
}

func addTable14(b *Builder, t *drydb14.Table, td *drydb14.TableData, keys [][]byte) error {
	allUTF8 := true
	for _, r := range td.Rows {
		allUTF8 = allUTF8 && utf8.Valid(r.Key)
	}
	tb, err := b.Table(t.Name, &TableOptions{Encoding: t.Primary.Enc.Native(allUTF8)})
	if err != nil {
		return err
	}
	for i, r := range td.Rows {
		if err := tb.Append(keys[i], r.Value); err != nil {
			return err
		}
	}
	var ik []byte
	for xi, ix := range t.Indexes {
		es := td.Indexes[xi]
		allUTF8 := true
		for _, e := range es {
			allUTF8 = allUTF8 && utf8.Valid(e.Key)
		}
		ib, err := tb.AddIndex(ix.Name, &IndexOptions{Unique: ix.Unique, Encoding: ix.Enc.Native(allUTF8)})
		if err != nil {
			return err
		}
		for _, e := range es {
			ik = ix.Enc.AppendNative(ik[:0], e.Key)
			if err := ib.Add(ik, keys[e.Row]); err != nil {
				return err
			}
		}
	}
	return nil
}

// err14 gives a drydb14 error the engine's classification (ErrCorrupt with where, ErrVersion).
func err14(err error) error {
	var ce *drydb14.CorruptError
	if errors.As(err, &ce) {
		pg := noPage
		if ce.Page >= 0 {
			pg = uint64(ce.Page)
		}
		return &CorruptError{Page: pg, Offset: ce.Offset, Reason: "DryDB 1.4 file: " + ce.Reason}
	}
	if errors.Is(err, drydb14.ErrVersion) {
		return fmt.Errorf("%w: %v", ErrVersion, err)
	}
	return err
}

// allocWriter collects a build in memory from osfile.Alloc, doubling as it grows.
type allocWriter struct {
	mem []byte
	n   int
}

func (w *allocWriter) Write(p []byte) (int, error) {
	if len(p) > len(w.mem)-w.n {
		size := max(2*len(w.mem), w.n+len(p), 64<<10)
		m, err := osfile.Alloc(size)
		if err != nil {
			return 0, fmt.Errorf("allocating %d bytes for the image: %w", size, err)
		}
		copy(m, w.mem[:w.n])
		w.free()
		w.mem = m
	}
	w.n += copy(w.mem[w.n:], p)
	return len(p), nil
}

func (w *allocWriter) free() {
	if w.mem != nil {
		osfile.Free(w.mem)
		w.mem = nil
	}
}

func is14(data []byte) bool { return drydb14.Is(data) }

// openBytes opens data, translating a DryDB 1.4 file.
func openBytes(data []byte, opts *Options) (*DB, error) {
	if !is14(data) {
		return openData(data, opts)
	}
	img, free, err := image14(data)
	if err != nil {
		return nil, err
	}
	db, err := openData(img, opts)
	if err != nil {
		free()
		return nil, err
	}
	db.release = free
	return db, nil
}

// OwnImage returns the native image the DB built itself from a DryDB 1.4 file: memory outside
// the Go heap, valid until Close, that every value returned lies in. It is nil for a DB reading
// a native file (its mapping or the caller's bytes).
func (db *DB) OwnImage() []byte {
	if db.release == nil {
		return nil
	}
	return db.data
}
