package engine

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/drydb/drydb/internal/osfile"
)

// Live is a database that follows its path: a batch job rebuilds the file
// and renames the new one over the path, and Refresh switches readers to it
// without stopping them.
//
// The current version is a *DB. Readers reach it through Acquire, which
// pins the version until Release: every slice read from a pinned DB stays
// valid until then, however many refreshes happen meanwhile. A LiveTable
// (Live.Table) resolves its table in the current version at each call and
// returns copies, so its results never expire. A replaced version is
// unmapped by whoever releases it last (Refresh itself when nothing pins
// it). A Live is safe for concurrent use.
type Live struct {
	path string
	opts *Options
	mu   sync.Mutex // serialises Refresh and Close
	cur  atomic.Pointer[liveVersion]
}

// liveVersion is one file: refs counts the Live's own reference (until a
// refresh replaces it) and every Snapshot; the DB closes at 0.
type liveVersion struct {
	db   *DB
	file *osfile.File // kept open: Refresh asks whether the path still names it
	seq  uint64
	refs atomic.Int64
}

func (v *liveVersion) release() {
	if v.refs.Add(-1) == 0 {
		v.db.Close()
		v.file.Close()
	}
}

// tryAcquire adds a reference unless the version is already gone.
func (v *liveVersion) tryAcquire() bool {
	for {
		n := v.refs.Load()
		if n <= 0 {
			return false
		}
		if v.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func openLiveVersion(path string, opts *Options, fl *osfile.File) (*liveVersion, error) {
	db, err := openFile(fl, path, opts)
	if err != nil {
		fl.Close()
		return nil, err
	}
	v := &liveVersion{db: db, file: fl}
	v.refs.Store(1)
	return v, nil
}

// OpenLive opens the file at path as Open does, to follow the path with
// Refresh.
func OpenLive(path string, opts *Options) (*Live, error) {
	fl, err := osfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("drydb: %w", err)
	}
	v, err := openLiveVersion(path, opts, fl)
	if err != nil {
		return nil, err
	}
	l := &Live{path: path, opts: opts}
	l.cur.Store(v)
	return l, nil
}

// Refresh opens the file now at the path if it is another file than the
// current version's (a rename over the path makes a new one), checks it as
// Open does (with Options.Verify, every page), and makes it the current
// version: Acquire and LiveTable calls use it from then on; snapshots keep
// theirs. It reports whether the version changed. A file that is missing,
// truncated or corrupt leaves the current version in place and the error
// says why.
func (l *Live) Refresh() (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.cur.Load()
	if old == nil {
		return false, ErrClosed
	}
	fl, err := osfile.Open(l.path)
	if err != nil {
		return false, fmt.Errorf("drydb: refresh of %s failed, the database keeps the version it had: %w", l.path, err)
	}
	if fl.Same(old.file) {
		fl.Close()
		return false, nil
	}
	v, err := openLiveVersion(l.path, l.opts, fl)
	if err != nil {
		return false, fmt.Errorf("refresh of %s failed, the database keeps the version it had: %w", l.path, err)
	}
	v.seq = old.seq + 1
	l.cur.Store(v)
	old.release()
	return true, nil
}

// Snapshot pins one version of a Live database.
type Snapshot struct {
	v    *liveVersion
	done atomic.Bool
}

// Acquire pins the current version. Its DB, and every slice read from it,
// stay valid until Release; call Release exactly once (extra calls do
// nothing).
func (l *Live) Acquire() (*Snapshot, error) {
	for {
		v := l.cur.Load()
		if v == nil {
			return nil, ErrClosed
		}
		// A version that a refresh released to 0 meanwhile cannot be
		// pinned: load the new one.
		if v.tryAcquire() {
			return &Snapshot{v: v}, nil
		}
	}
}

// DB is the pinned version. Do not Close it.
func (s *Snapshot) DB() *DB { return s.v.db }

// Seq is the pinned version's number: 0 for the file opened by OpenLive,
// one more for each refresh that replaced the file.
func (s *Snapshot) Seq() uint64 { return s.v.seq }

// Release unpins the version; the last user of a replaced version unmaps it.
func (s *Snapshot) Release() {
	if s.done.CompareAndSwap(false, true) {
		s.v.release()
	}
}

// Version returns the current version's build id (random per build) and
// number (see Snapshot.Seq).
func (l *Live) Version() ([16]byte, uint64, error) {
	s, err := l.Acquire()
	if err != nil {
		return [16]byte{}, 0, err
	}
	defer s.Release()
	return s.v.db.info.BuildID, s.v.seq, nil
}

// Close closes the database; the current version is unmapped once no
// snapshot pins it. Close is idempotent.
func (l *Live) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v := l.cur.Swap(nil); v != nil {
		v.release()
	}
	return nil
}

// LiveTable is a table of a Live database by name, resolved in the current
// version at each call. A version without the table gives ErrNoTable naming
// it, until a later version has it again.
type LiveTable struct {
	l    *Live
	name string
}

// Table returns the named table; it need not exist in the current version.
func (l *Live) Table(name string) *LiveTable { return &LiveTable{l: l, name: name} }

// view runs f on the table in a pinned current version.
func (t *LiveTable) view(f func(tb *Table) error) error {
	s, err := t.l.Acquire()
	if err != nil {
		return err
	}
	defer s.Release()
	tb, err := s.DB().Table(t.name)
	if err != nil {
		return err
	}
	return f(tb)
}

// Get appends the value under key to dst and returns it, or ErrNotFound.
// The result is a copy: it stays valid after any refresh.
func (t *LiveTable) Get(dst, key []byte) ([]byte, error) {
	err := t.view(func(tb *Table) error {
		v, err := tb.Get(key)
		if err == nil {
			dst = append(dst, v...)
		}
		return err
	})
	return dst, err
}

// Count returns the number of rows with keys within lo..hi.
func (t *LiveTable) Count(lo, hi Bound) (n uint64, err error) {
	err = t.view(func(tb *Table) error {
		n, err = tb.Count(lo, hi)
		return err
	})
	return n, err
}

// Len returns the number of rows.
func (t *LiveTable) Len() (n uint64, err error) {
	err = t.view(func(tb *Table) error {
		n = tb.Len()
		return nil
	})
	return n, err
}
