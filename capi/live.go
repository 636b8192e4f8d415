package main

/*
#include <stdlib.h>
#include "cdefs.h"
#include "fast.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/drydb/drydb/engine"
)

// Hot swap (drydb_refresh). A database handle names a dbRoot; the root
// publishes its current version (a dbObj: one mapped file) in C memory
// (struct drydb__dbc), where the C fast path and Go read the same word, so
// every answer comes from the version that was current when its call
// checked. A refresh opens the file now at the path, installs the new
// version's fast-path layouts, publishes the version (one atomic store),
// then retires the old one: new calls go to the new version, calls in
// progress finish on the old one. The old one is unmapped by reap (at the
// next refresh or at close) once no call is in it and nothing holds it:
// no thread whose last call used it (fast.c, "versions"), no cursor, no
// merge builder.
type dbRoot struct {
	handle uintptr
	path   string // "" for drydb_open_memory, which cannot refresh
	opts   *engine.Options
	cdb    *C.struct_drydb__dbc // C memory: the published version
	closed atomic.Bool

	mu   sync.Mutex           // guards tabs, kids and the fast paths of tabs
	tabs map[string]*tableRef // table handles, one per name
	kids map[uintptr]func()   // every child handle with its cleanup

	rmu     sync.Mutex // serialises refresh, reap and close's teardown
	retired []*dbObj   // replaced versions not yet unmapped

	// every is drydb_refresh_every's period (ns; 0: off); next is when a
	// call may check the path again (UnixNano).
	every, next atomic.Int64
}

// tableRef is what a table handle names: a table by name, resolved in the
// current version at each call (dbObj.views).
type tableRef struct {
	r      *dbRoot
	name   string
	handle uintptr
	ixs    map[string]uintptr  // index handles, guarded by r.mu
	ft     *C.struct_drydb__ft // fast path of the current version, nil when none; guarded by r.mu
	pin    runtime.Pinner      // the verified bitmap ft reads
}

// indexRef is what an index handle names.
type indexRef struct {
	t    *tableRef
	name string
}

func newRoot(d *dbObj, path string, opts *engine.Options, out *C.uintptr_t) C.int {
	r := &dbRoot{path: path, opts: opts, tabs: map[string]*tableRef{}, kids: map[uintptr]func(){}}
	d.r = r
	if r.cdb = C.drydb__dbc_new(); r.cdb == nil {
		d.release()
		return failf(codeNoMem, "cannot allocate a database")
	}
	C.drydb__dbc_publish(r.cdb, d.cver)
	r.handle = newHandle(kindDB, r)
	if r.handle == 0 {
		d.release()
		C.drydb__dbc_free(r.cdb)
		return failf(codeNoMem, "too many open handles")
	}
	*out = C.uintptr_t(r.handle)
	return codeOK
}

// current returns the published version, nil while a refresh or close
// recycles it under us (the caller loads again).
func (r *dbRoot) current() *dbObj {
	cv := (*C.struct_drydb__ver)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&r.cdb.cur))))
	if cv == nil {
		return nil
	}
	o, code := lookup(uintptr(cv.goh), kindVersion)
	if code != codeOK {
		return nil
	}
	if d := o.(*dbObj); d.r == r {
		return d
	}
	return nil
}

// enter admits a call on the current version and makes the calling thread
// hold it, so that pointers the call returns stay mapped until the
// thread's next call. A due automatic check runs first.
func (r *dbRoot) enter() (*dbObj, C.int) {
	if e := r.every.Load(); e > 0 && time.Now().UnixNano() >= r.next.Load() {
		r.autoRefresh(e)
	}
	for spins := 0; ; spins++ {
		if r.closed.Load() {
			return nil, failf(codeClosed, "database is closed")
		}
		if d := r.current(); d != nil && d.enter() {
			if C.drydb__ver_hold(d.cver, d.gen) == 0 {
				d.leave()
				return nil, failf(codeNoMem, "out of memory for the thread's state")
			}
			return d, codeOK
		}
		// A refresh retired the version we read: read again.
		if spins > 100 {
			runtime.Gosched()
		}
	}
}

// autoRefresh is drydb_refresh_every's check, made by the first call that
// finds it due; the others go on with the current version.
func (r *dbRoot) autoRefresh(every int64) {
	if !r.rmu.TryLock() {
		return
	}
	defer r.rmu.Unlock()
	now := time.Now().UnixNano()
	if now < r.next.Load() {
		return
	}
	r.next.Store(now + every)
	// An error leaves the current version in place; the next explicit
	// drydb_refresh reports it.
	r.refreshLocked(false)
}

// refresh opens the file now at the path if it is another file than the
// current version's, and makes it the current version.
func (r *dbRoot) refresh() (bool, error) {
	r.rmu.Lock()
	defer r.rmu.Unlock()
	return r.refreshLocked(true)
}

func (r *dbRoot) refreshLocked(unhold bool) (changed bool, err error) {
	if unhold {
		// drydb_refresh is this thread's next call: what its earlier calls
		// returned may go (so that a drained old version unmaps now).
		C.drydb__ver_unhold()
	}
	defer r.reap()
	if r.closed.Load() {
		return false, engine.ErrClosed
	}
	if r.path == "" {
		return false, fmt.Errorf("%w: a database opened from memory has no path to refresh from", engine.ErrInvalid)
	}
	old := r.current()
	if old == nil || old.retired.Load() {
		return false, fmt.Errorf("drydb: refresh: no current version (internal)")
	}
	fl, err := openFile(r.path)
	if err == nil && fl.Same(old.file.File) {
		fl.close()
		return false, nil
	}
	var nv *dbObj
	if err == nil {
		nv, err = openFileVersion(fl, r.opts)
	}
	if err != nil {
		return false, fmt.Errorf("refresh of %s failed, the database keeps the version it had: %w", r.path, err)
	}
	nv.r = r
	nv.seq = old.seq + 1
	r.mu.Lock()
	var stale []*tableRef
	var oldFts []*C.struct_drydb__ft
	var oldPins []runtime.Pinner
	for _, ref := range r.tabs {
		if ref.ft != nil {
			oldFts = append(oldFts, ref.ft)
			oldPins = append(oldPins, ref.pin)
			ref.ft, ref.pin = nil, runtime.Pinner{}
		}
		stale = append(stale, ref)
	}
	// The new layouts first: a reader that finds one before the version
	// is published falls back to Go, which answers from the old version.
	for _, ref := range stale {
		ref.install(nv)
	}
	C.drydb__dbc_publish(r.cdb, nv.cver)
	r.mu.Unlock()
	// Now nothing starts on the old layouts; close them (each waits for
	// its readers, one lookup at most) and retire the old version.
	for i, ft := range oldFts {
		C.drydb__fast_close(ft)
		oldPins[i].Unpin()
	}
	old.retired.Store(true)
	C.drydb__ver_release(old.cver, old.gen) // the owner's reference
	r.retired = append(r.retired, old)
	return true, nil
}

// reap unmaps every retired version that nothing uses any more.
func (r *dbRoot) reap() {
	keep := r.retired[:0]
	for _, d := range r.retired {
		// retired was set before: a call either saw it or is counted in
		// active; one counted holds the version (the thread's hold) before
		// it leaves, so refs is read after active.
		if d.active.Load() == 0 && C.drydb__ver_reap(d.cver, d.gen, 0) != 0 {
			d.release()
			continue
		}
		keep = append(keep, d)
	}
	clear(r.retired[len(keep):])
	r.retired = keep
}

// close ends the database: no call starts, the calls in progress finish,
// then every version goes, whatever holds it (what the database returned is
// invalid after close).
func (r *dbRoot) close() {
	r.closed.Store(true)
	r.rmu.Lock()
	defer r.rmu.Unlock()
	vers := append([]*dbObj{}, r.retired...)
	if cur := r.current(); cur != nil {
		vers = append(vers, cur)
	}
	// Calls are short (no call blocks on the host), so polling is enough.
	for _, d := range vers {
		for spins := 0; d.active.Load() != 0; spins++ {
			if spins < 100 {
				runtime.Gosched()
			} else {
				time.Sleep(50 * time.Microsecond)
			}
		}
	}
	r.mu.Lock()
	kids := r.kids
	r.kids = map[uintptr]func(){}
	r.mu.Unlock()
	for h, cleanup := range kids {
		if freeHandle(h) && cleanup != nil {
			cleanup()
		}
	}
	for _, d := range vers {
		d.release()
	}
	r.retired = nil
	C.drydb__dbc_free(r.cdb)
}

// install sets up the C fast path of ref's table in version d, if the
// table is there and plain; called with r.mu held.
func (ref *tableRef) install(d *dbObj) {
	t := d.views[ref.name]
	if t == nil {
		return // vanished: calls go to Go, which says so
	}
	l, ok := t.t.Layout()
	if !ok {
		return
	}
	cl := C.struct_drydb__layout{
		data: (*C.uint8_t)(l.Data), verified: (*C.uint64_t)(l.Verified),
		root: C.uint64_t(l.Root), depth: C.uint64_t(l.Depth), first: C.uint64_t(l.FirstPage),
		last: C.uint64_t(l.LastPage), rows: C.uint64_t(l.Rows), pshift: C.uint32_t(l.PageShift), kind: C.int(l.Encoding),
		cur: &ref.r.cdb.cur, ver: d.cver, vgen: d.gen,
		hash_first: C.uint64_t(l.HashFirst), hash_slots: C.uint64_t(l.HashSlots), hash_last: C.uint64_t(l.HashLast),
		hash_probe: C.uint64_t(l.HashMaxProbe), leaves: C.uint64_t(l.Leaves),
	}
	if l.Key8 {
		cl.key8 = 1
	}
	if c := l.Cache; c != nil {
		// Compressed table: C takes cache hits itself. The cache's memory
		// is outside the Go heap and lives until the version is released,
		// after its fast paths are closed (refresh and close close them
		// first).
		cl.cache_mem = (*C.uint8_t)(c.Mem)
		cl.cache_words = (*C.struct_drydb__slot_words)(c.Words)
		cl.cache_hints = (*C.uint64_t)(c.Hints)
		cl.hint_shift = C.uint32_t(c.HintShift)
		cl.cache_slots = C.uint64_t(c.Slots)
		cl.cache_tag = C.uint64_t(c.Tag)
	}
	cl.nparts = C.int(len(t.enc.Parts))
	for i, k := range t.enc.Parts {
		cl.parts[i] = C.uint8_t(k)
	}
	// The bitmap is Go memory that C keeps: pinned until the fast path is
	// closed (the collector does not move objects, but the cgo rules want
	// it said).
	if l.Verified != nil {
		ref.pin.Pin(l.Verified)
	}
	if ref.ft = C.drydb__fast_open(C.uint64_t(ref.handle), &cl); ref.ft == nil {
		ref.pin.Unpin()
	}
}

// cleanup closes ref's fast path (the database or the table closes).
func (ref *tableRef) cleanup() {
	ref.r.mu.Lock()
	ft := ref.ft
	ref.ft = nil
	ref.r.mu.Unlock()
	if ft != nil {
		C.drydb__fast_close(ft)
		ref.pin.Unpin()
	}
}

// getRoot resolves a database handle without entering a version.
func getRoot(h C.uintptr_t) (*dbRoot, C.int) {
	o, code := lookup(uintptr(h), kindDB)
	if code != codeOK {
		return nil, handleErr(code, kindDB)
	}
	return o.(*dbRoot), codeOK
}

//export drydb_refresh
func drydb_refresh(h C.uintptr_t, changed *C.int) (rc C.int) {
	defer guard(&rc)
	r, rc := getRoot(h)
	if rc != codeOK {
		return rc
	}
	ch, err := r.refresh()
	if changed != nil {
		*changed = 0
		if ch {
			*changed = 1
		}
	}
	return fail(err)
}

//export drydb_refresh_every
func drydb_refresh_every(h C.uintptr_t, ms C.int64_t) (rc C.int) {
	defer guard(&rc)
	r, rc := getRoot(h)
	if rc != codeOK {
		return rc
	}
	if ms < 0 {
		return failf(codeInvalid, "drydb_refresh_every: negative period %d ms", int64(ms))
	}
	if ms > 0 && r.path == "" {
		return failf(codeInvalid, "drydb_refresh_every: a database opened from memory has no path to refresh from")
	}
	r.next.Store(time.Now().UnixNano() + int64(ms)*int64(time.Millisecond))
	r.every.Store(int64(ms) * int64(time.Millisecond))
	return codeOK
}

//export drydb_db_version
func drydb_db_version(h C.uintptr_t, buildID *C.uint8_t, seq *C.uint64_t) (rc C.int) {
	defer guard(&rc)
	d, rc := getDB(h)
	if rc != codeOK {
		return rc
	}
	defer d.leave()
	if buildID != nil {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(buildID)), len(d.info.BuildID)), d.info.BuildID[:])
	}
	if seq != nil {
		*seq = C.uint64_t(d.seq)
	}
	return codeOK
}
