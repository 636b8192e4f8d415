package main

/*
#include <stdlib.h>
#include "cdefs.h"
#include "fast.h"
*/
import "C"

import (
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/internal/osfile"
)

// dbObj is one version of an open database: a mapped file (or the caller's
// memory) with what was handed out for it. A database handle names a
// dbRoot (live.go), whose current version changes at drydb_refresh; calls
// resolve it on entry (dbRoot.enter) and keep the version they entered
// until they return.
type dbObj struct {
	r       *dbRoot
	db      *engine.DB
	mapping []byte  // our own mmap of the file; nil for drydb_open_memory
	file    *file   // the mapped file, kept open to tell whether it changed
	lo, hi  uintptr // address range of the image: data inside is returned zero-copy

	// active counts calls in progress on this version. A call enters only
	// while the database is open and the version not retired (replaced by
	// a refresh); the version is unmapped only once active is 0 and its C
	// struct's reference count (threads, cursors, merge builders) is 0.
	active  atomic.Int64
	retired atomic.Bool
	cver    *C.struct_drydb__ver // the reference count (fast.c, "versions")
	gen     C.uint32_t
	vhandle uintptr // kindVersion handle: how the published C pointer finds this object
	seq     uint64  // how many refreshes made a new version before this one

	names   []*C.char            // table names, C strings freed at reap
	codecs  []*C.char            // tables' codec names (drydb_table_codec), freed at reap
	ixNames map[string][]*C.char // index names per table, freed at reap
	meta    map[string]cbuf      // metadata values copied to C memory
	metaKey []cbuf               // metadata keys in order, owned C copies (drydb_meta_key)
	info    engine.Info          // cached: Info() copies a map
	views   map[string]*tableObj // the tables of this version, by name
}

// cbuf is a block of C memory.
type cbuf struct {
	p *C.uint8_t
	n int
}

// enter admits a call unless the database is closed or the version
// retired; pair with leave. The increment comes before the checks, and
// close and refresh set their flag before reading active (all sequentially
// consistent), so either the call sees the flag or they see the call.
func (d *dbObj) enter() bool {
	d.active.Add(1)
	if d.r.closed.Load() || d.retired.Load() {
		d.active.Add(-1)
		return false
	}
	return true
}

// enterHeld admits a call on a version that the caller holds a reference
// to (a cursor, a merge builder): it may be retired, but not closed.
func (d *dbObj) enterHeld() bool {
	d.active.Add(1)
	if d.r.closed.Load() {
		d.active.Add(-1)
		return false
	}
	return true
}

func (d *dbObj) leave() { d.active.Add(-1) }

// ptr returns a C pointer for b: b itself when it lies inside the image,
// else (Go memory) nil, telling the caller to copy.
func (d *dbObj) inImage(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= d.lo && p+uintptr(len(b)) <= d.hi
}

// addKid registers a child handle and the cleanup run when the database
// closes first.
func (d *dbObj) addKid(h uintptr, cleanup func()) {
	d.r.mu.Lock()
	d.r.kids[h] = cleanup
	d.r.mu.Unlock()
}

func (d *dbObj) dropKid(h uintptr) {
	d.r.mu.Lock()
	delete(d.r.kids, h)
	d.r.mu.Unlock()
}

// maxLen bounds every length crossing the API (DRYDB_MAX_LEN).
const maxLen = 1<<31 - 1

// empty is the key used for a zero-length input: the engine treats it as a
// real (smallest) key.
var empty = []byte{}

// in views C memory as a byte slice without copying (the memory is not Go
// memory, so the engine may read it during the call but must not keep it).
func in(p *C.uint8_t, n C.size_t) ([]byte, bool) {
	if n == 0 {
		return empty, true
	}
	if p == nil || uint64(n) > maxLen {
		return nil, false
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n)), true
}

func badLen(what string, p *C.uint8_t, n C.size_t) C.int {
	if p == nil {
		return failf(codeInvalid, "%s is NULL with length %d", what, uint64(n))
	}
	return failf(codeInvalid, "%s length %d exceeds DRYDB_MAX_LEN", what, uint64(n))
}

// in2 is in() of two buffers given together (a key and its value): their
// slices, or the status naming the first that is wrong.
func in2(aw string, a *C.uint8_t, an C.size_t, bw string, b *C.uint8_t, bn C.size_t) ([]byte, []byte, C.int) {
	x, ok := in(a, an)
	if !ok {
		return nil, nil, badLen(aw, a, an)
	}
	y, ok := in(b, bn)
	if !ok {
		return nil, nil, badLen(bw, b, bn)
	}
	return x, y, codeOK
}

func emptyPtr() *C.uint8_t { return (*C.uint8_t)(unsafe.Pointer(&C.drydb__empty[0])) }

// setPtr stores p into a pointer variable that lives in C memory (an
// out-parameter or an array the caller passed), as a plain word. A typed
// pointer store would run Go's write barrier, which also looks at the old
// contents of the variable, whatever the C caller left there, as if it were
// a Go pointer: when that garbage happens to fall inside the Go heap, the
// garbage collector aborts the process ("found bad pointer in Go heap").
func setPtr(dst **C.uint8_t, p *C.uint8_t) {
	*(*uintptr)(unsafe.Pointer(dst)) = uintptr(unsafe.Pointer(p))
}

// setCharPtr is setPtr for C strings.
func setCharPtr(dst **C.char, p *C.char) {
	*(*uintptr)(unsafe.Pointer(dst)) = uintptr(unsafe.Pointer(p))
}

func cptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return emptyPtr()
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b)))
}

// getDB resolves a database handle and enters its current version.
func getDB(h C.uintptr_t) (*dbObj, C.int) {
	o, code := lookup(uintptr(h), kindDB)
	if code != codeOK {
		return nil, handleErr(code, kindDB)
	}
	return o.(*dbRoot).enter()
}

func openOptions(flags C.uint32_t, cacheBytes C.int64_t) (*engine.Options, C.int) {
	if flags&^C.DRYDB_OPEN_VERIFY != 0 {
		return nil, failf(codeInvalid, "unknown open flags 0x%x", uint32(flags))
	}
	if cacheBytes < 0 {
		return nil, failf(codeInvalid, "negative cache size %d", int64(cacheBytes))
	}
	return &engine.Options{Verify: flags&C.DRYDB_OPEN_VERIFY != 0, CacheBytes: int64(cacheBytes)}, codeOK
}

//export drydb_open
func drydb_open(path *C.char, flags C.uint32_t, cacheBytes C.int64_t, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	if path == nil || out == nil {
		return failf(codeInvalid, "drydb_open: NULL path or out")
	}
	opts, rc := openOptions(flags, cacheBytes)
	if rc != codeOK {
		return rc
	}
	name := C.GoString(path)
	d, err := openPath(name, opts)
	if err != nil {
		return fail(err)
	}
	return newRoot(d, name, opts, out)
}

// openPath maps the file at name and opens it as a version. The file is
// mapped here rather than in engine.Open, so that this package knows the
// address range of the image: values inside it go to C zero-copy, anything
// else is copied out of Go memory.
func openPath(name string, opts *engine.Options) (*dbObj, error) {
	fl, err := openFile(name)
	if err != nil {
		return nil, fmt.Errorf("drydb: %w", err)
	}
	return openFileVersion(fl, opts)
}

// openFileVersion is openPath for a file already open; it closes fl on
// failure.
func openFileVersion(fl *file, opts *engine.Options) (*dbObj, error) {
	name := fl.name
	if int64(int(fl.Size)) != fl.Size || fl.Size > 1<<46 {
		fl.close()
		return nil, fmt.Errorf("%w: file %s of %d bytes is too large to map", engine.ErrTooLarge, name, fl.Size)
	}
	data, err := fl.Map() // nil for an empty file
	if err != nil {
		fl.close()
		return nil, fmt.Errorf("drydb: mapping %s: %w", name, err)
	}
	if engine.IsManifest(data) {
		osfile.Unmap(data)
		return openManifestVersion(fl, opts)
	}
	d, err := openVersion(data, fl, opts)
	if err != nil {
		if data != nil {
			osfile.Unmap(data)
		}
		fl.close()
	}
	return d, err
}

// openManifestVersion opens a sharded database (engine.OpenManifest; fl is
// the manifest, kept open for refresh to tell whether the path changed).
// Its values lie in the shards' mappings, outside any image of this
// package: they are copied out, and no C fast path is registered
// (Table.Layout says no).
func openManifestVersion(fl *file, opts *engine.Options) (*dbObj, error) {
	db, err := engine.OpenManifest(fl.name, opts)
	if err != nil {
		fl.close()
		return nil, err
	}
	d, err := newVersion(db, nil, fl)
	if err != nil {
		fl.close()
	}
	return d, err
}

//export drydb_open_memory
func drydb_open_memory(data unsafe.Pointer, n C.size_t, flags C.uint32_t, cacheBytes C.int64_t, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	if out == nil {
		return failf(codeInvalid, "drydb_open_memory: NULL out")
	}
	b, ok := in((*C.uint8_t)(data), n)
	if !ok {
		return badLen("data", (*C.uint8_t)(data), n)
	}
	opts, rc := openOptions(flags, cacheBytes)
	if rc != codeOK {
		return rc
	}
	d, err := openVersion(b, nil, opts)
	if err != nil {
		return fail(err)
	}
	return newRoot(d, "", opts, out)
}

// openVersion opens the database in data: a mapping of fl, or the caller's
// memory when fl is nil. On success the version owns data and fl.
func openVersion(data []byte, fl *file, opts *engine.Options) (d *dbObj, err error) {
	defer debug.SetPanicOnFault(faults())
	db, err := engine.OpenBytes(data, opts)
	if err != nil {
		return nil, err
	}
	return newVersion(db, data, fl)
}

// newVersion makes the version of an open database (data: its image, nil
// for a sharded one).
func newVersion(db *engine.DB, data []byte, fl *file) (d *dbObj, err error) {
	d = &dbObj{db: db, meta: map[string]cbuf{}, views: map[string]*tableObj{}}
	if fl != nil {
		d.mapping, d.file = data, fl
	}
	// A DryDB 1.4 file was translated into an image of the DB's own, outside
	// the Go heap (engine/open14.go): values lie there, and nothing is read
	// from data after the open (its mapping goes once the version is made;
	// the file stays open for refresh to tell whether the path changed).
	img := data
	if own := db.OwnImage(); own != nil {
		img = own
	}
	if len(img) > 0 {
		d.lo = uintptr(unsafe.Pointer(unsafe.SliceData(img)))
		d.hi = d.lo + uintptr(len(img))
	}
	d.info = db.Info()
	d.ixNames = map[string][]*C.char{}
	for _, n := range db.Tables() {
		d.names = append(d.names, C.CString(n))
		t, _ := db.Table(n)
		d.views[n] = newView(d, t)
		for _, ix := range t.Indexes() {
			d.ixNames[n] = append(d.ixNames[n], C.CString(ix))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(d.info.Metadata)) {
		p := C.malloc(C.size_t(len(k) + 1))
		copy(unsafe.Slice((*byte)(p), len(k)), k)
		d.metaKey = append(d.metaKey, cbuf{p: (*C.uint8_t)(p), n: len(k)})
	}
	for k, v := range d.info.Metadata {
		d.meta[k] = cbuf{p: cptr(v), n: len(v)}
		if !d.inImage(v) { // the engine decoded it: keep a C copy
			p := C.malloc(C.size_t(len(v) + 1))
			copy(unsafe.Slice((*byte)(p), len(v)), v)
			d.meta[k] = cbuf{p: (*C.uint8_t)(p), n: -len(v) - 1} // negative: owned
		}
	}
	if d.cver = C.drydb__ver_new(&d.gen); d.cver == nil {
		d.file = nil // the caller closes it and unmaps
		d.mapping = nil
		d.release()
		return nil, fmt.Errorf("drydb: %w", syscall.ENOMEM)
	}
	if d.vhandle = newHandle(kindVersion, d); d.vhandle == 0 {
		d.file, d.mapping = nil, nil
		d.release()
		return nil, fmt.Errorf("drydb: %w: too many open handles", syscall.ENOMEM)
	}
	d.cver.goh = C.uint64_t(d.vhandle)
	if d.mapping != nil && db.OwnImage() != nil {
		osfile.Unmap(d.mapping)
		d.mapping = nil
	} else if d.file != nil {
		trackFile(d, d.file)
	}
	return d, nil
}

// release frees what the version owns; it runs once nothing uses it (reap,
// close).
func (d *dbObj) release() {
	if d.vhandle != 0 {
		freeHandle(d.vhandle)
		d.vhandle = 0
	}
	if d.cver != nil {
		// Kept: cursors and builders release it later, a no-op then (the
		// struct's gen has moved on).
		C.drydb__ver_reap(d.cver, d.gen, 1)
	}
	d.db.Close()
	if d.mapping != nil {
		osfile.Unmap(d.mapping)
		d.mapping = nil
	}
	if d.file != nil {
		trackFile(d, nil)
		d.file.close()
		d.file = nil
	}
	for _, p := range d.names {
		C.free(unsafe.Pointer(p))
	}
	d.names = nil
	for _, p := range d.codecs {
		C.free(unsafe.Pointer(p))
	}
	d.codecs = nil
	for _, ps := range d.ixNames {
		for _, p := range ps {
			C.free(unsafe.Pointer(p))
		}
	}
	d.ixNames = nil
	for _, m := range d.meta {
		if m.n < 0 {
			C.free(unsafe.Pointer(m.p))
		}
	}
	d.meta = nil
	for _, m := range d.metaKey {
		C.free(unsafe.Pointer(m.p))
	}
	d.metaKey = nil
	d.views = nil
}

//export drydb_close
func drydb_close(h C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	if h == 0 {
		return codeOK
	}
	o, code := lookup(uintptr(h), kindDB)
	if code == codeClosed {
		return codeOK
	}
	if code != codeOK {
		return handleErr(code, kindDB)
	}
	r := o.(*dbRoot)
	if !freeHandle(uintptr(h)) {
		return codeOK // another thread is closing it
	}
	r.close()
	return codeOK
}

//export drydb_verify
func drydb_verify(h C.uintptr_t) C.int {
	return call(h, getDB, (*dbObj).leave, func(d *dbObj) C.int {
		defer debug.SetPanicOnFault(faults())
		return fail(d.db.Verify())
	})
}

//export drydb_info
func drydb_info(h C.uintptr_t, out *C.struct_drydb_db_info) C.int {
	return call(h, getDB, (*dbObj).leave, func(d *dbObj) C.int {
		if out == nil {
			return failf(codeInvalid, "drydb_info: NULL out")
		}
		*out = C.struct_drydb_db_info{}
		out.format_version = C.uint32_t(d.info.FormatVersion)
		out.page_size = C.uint32_t(d.info.PageSize)
		out.file_size = C.int64_t(d.info.FileSize)
		out.created_unix_ns = C.int64_t(d.info.Created.UnixNano())
		for i, b := range d.info.BuildID {
			out.build_id[i] = C.uint8_t(b)
		}
		out.table_count = C.uint64_t(len(d.names))
		out.map_addr = C.uint64_t(d.lo)
		out.map_len = C.uint64_t(d.hi - d.lo)
		return codeOK
	})
}

//export drydb_meta_get
func drydb_meta_get(h C.uintptr_t, key *C.uint8_t, klen C.size_t, val **C.uint8_t, vlen *C.size_t) C.int {
	return call(h, getDB, (*dbObj).leave, func(d *dbObj) C.int {
		k, ok := in(key, klen)
		if !ok {
			return badLen("key", key, klen)
		}
		if val == nil || vlen == nil {
			return failf(codeInvalid, "drydb_meta_get: NULL out-pointer")
		}
		m, ok := d.meta[string(k)]
		if !ok {
			return codeNotFound
		}
		n := m.n
		if n < 0 {
			n = -n - 1
		}
		setPtr(val, m.p)
		*vlen = C.size_t(n)
		return codeOK
	})
}

//export drydb_meta_key
func drydb_meta_key(h C.uintptr_t, i C.size_t, key **C.uint8_t, klen *C.size_t) C.int {
	return call(h, getDB, (*dbObj).leave, func(d *dbObj) C.int {
		if key == nil || klen == nil {
			return failf(codeInvalid, "drydb_meta_key: NULL out-pointer")
		}
		if uint64(i) >= uint64(len(d.metaKey)) {
			return codeNotFound
		}
		m := d.metaKey[i]
		setPtr(key, m.p)
		*klen = C.size_t(m.n)
		return codeOK
	})
}

//export drydb_table_count
func drydb_table_count(h C.uintptr_t, out *C.size_t) C.int {
	return call(h, getDB, (*dbObj).leave, func(d *dbObj) C.int {
		if out == nil {
			return failf(codeInvalid, "drydb_table_count: NULL out")
		}
		*out = C.size_t(len(d.names))
		return codeOK
	})
}

//export drydb_table_name
func drydb_table_name(h C.uintptr_t, i C.size_t, name **C.char) C.int {
	return call(h, getDB, (*dbObj).leave, func(d *dbObj) C.int {
		if name == nil {
			return failf(codeInvalid, "drydb_table_name: NULL out")
		}
		if uint64(i) >= uint64(len(d.names)) {
			return codeNotFound
		}
		setCharPtr(name, d.names[i])
		return codeOK
	})
}

//export drydb_cache_stats
func drydb_cache_stats(h C.uintptr_t, out *C.struct_drydb_cache_stats) C.int {
	return call(h, getDB, (*dbObj).leave, func(d *dbObj) C.int {
		if out == nil {
			return failf(codeInvalid, "drydb_cache_stats: NULL out")
		}
		s := d.db.CacheStats()
		*out = C.struct_drydb_cache_stats{}
		out.hits, out.misses, out.evictions, out.bytes = C.uint64_t(s.Hits), C.uint64_t(s.Misses), C.uint64_t(s.Evictions), C.uint64_t(s.Bytes)
		return codeOK
	})
}
