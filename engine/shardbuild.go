package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// ShardOptions configure BuildShards.
type ShardOptions struct {
	Shards int // number of range shards, at least 1
	// Jobs is how many shards are built at once; 0 means GOMAXPROCS.
	Jobs int
	// MemoryBudget is shared by the shards being built at once (each gets
	// MemoryBudget/Jobs before it spills sorted runs); 0 means 256 MiB.
	MemoryBudget int64
	TempDir      string
	// PageSize of the shards; 0 keeps the source's.
	PageSize int
	// Partition is PartitionRange ("" too) or PartitionHash: shard i then
	// holds the keys whose HashSlot among Shards slots is i (point lookups
	// and counts; no row numbers: docs/FORMAT.md). Each hash shard is built
	// by a scan of the whole source that keeps its slot's rows, so a hash
	// build reads the source Shards times (Jobs at once).
	Partition string
}

// BuildShards writes the rows of src as range shards next to manifestPath,
// then the manifest (atomically). Each table is cut into Shards parts of
// equal row counts; shard i holds part i of every table, with the index
// entries of its rows. The shards are built in parallel (Jobs at a time),
// each from its key range of src, already in key order. Their names carry a
// tag of this build ("NAME-TAG-00003.drydb"), so readers of an older
// manifest of the same name keep their shards; deleting those is left to
// the caller.
func BuildShards(src *DB, manifestPath string, opts *ShardOptions) (*Manifest, error) {
	o := *opts
	if o.Shards < 1 || o.Shards > 1<<16 {
		return nil, fmt.Errorf("%w: %d shards (1 to %d)", ErrInvalid, o.Shards, 1<<16)
	}
	manifest := RangeManifest
	switch o.Partition {
	case "", PartitionRange:
	case PartitionHash:
		manifest = HashManifest
	default:
		return nil, fmt.Errorf("%w: partition %q (range or hash)", ErrInvalid, o.Partition)
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	o.Jobs = min(o.Jobs, o.Shards)
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = 256 << 20
	}
	if o.PageSize == 0 {
		o.PageSize = src.info.PageSize
	}
	dir, base := filepath.Split(manifestPath)
	if dir == "" {
		dir = "."
	}
	tag := rand.Uint32()
	names := make([]string, o.Shards)
	for i := range names {
		names[i] = shardName(base, tag, i)
	}
	errs := make([]error, o.Shards)
	sem := make(chan struct{}, o.Jobs)
	var wg sync.WaitGroup
	for i := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = buildShard(src, filepath.Join(dir, names[i]), i, &o)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			removeShards(dir, names)
			return nil, fmt.Errorf("shard %d (%s): %w", i, names[i], err)
		}
	}
	m, err := manifest(dir, names)
	if err == nil {
		err = WriteManifest(manifestPath, m)
	}
	if err != nil {
		removeShards(dir, names)
		return nil, err
	}
	return m, nil
}

// shardName is the file name of shard i of a build (tag) of the manifest
// named base: "NAME-TAG-00003.drydb" for NAME.manifest. drydb.spark names
// its shards the same way, so ShardGC finds both.
func shardName(base string, tag uint32, i int) string {
	return fmt.Sprintf("%s-%08x-%05d.drydb", strings.TrimSuffix(base, filepath.Ext(base)), tag, i)
}

// isShardName says whether name is shardName(base, some tag, some i).
func isShardName(base, name string) bool {
	stem := strings.TrimSuffix(base, filepath.Ext(base)) + "-"
	rest, ok := strings.CutPrefix(name, stem)
	if !ok || len(rest) != len("01234567-00000.drydb") || !strings.HasSuffix(rest, ".drydb") || rest[8] != '-' {
		return false
	}
	for i, c := range rest[:14] {
		hex := c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
		if i != 8 && (!hex || i > 8 && c > '9') {
			return false
		}
	}
	return true
}

// ShardGC deletes the shard files of older builds of the manifest at path:
// files next to it named as BuildShards and drydb.spark name shards for it
// ("NAME-TAG-00003.drydb") that the current manifest does not list. It
// deletes nothing while the manifest is younger than grace (readers of the
// version it replaced may not have refreshed yet: a reader opens shards at
// first use, so a deleted shard it had not opened fails its reads, naming
// it), nor shards younger than grace (a build in progress writes its shards
// before its manifest). On POSIX a shard a reader has open stays readable
// after its deletion (the mapping holds the file); on Windows deleting an
// open shard fails: the error names it, and a later ShardGC retries. It
// returns the names deleted.
func ShardGC(path string, grace time.Duration) ([]string, error) {
	m, _, err := readManifest(path)
	if err != nil {
		return nil, err
	}
	// the manifest's age: written after every shard it lists, it dates the
	// replacement of the version before
	if st, err := os.Stat(path); err != nil || time.Since(st.ModTime()) < grace {
		return nil, err
	}
	live := map[string]bool{}
	for _, s := range m.Shards {
		live[s] = true
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// Readdirnames, not os.ReadDir: ReadDir's sorting and entry types cost
	// the C library kilobytes
	d, err := os.Open(dir)
	var names []string
	if err == nil {
		names, err = d.Readdirnames(-1)
		d.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("drydb: %w", err)
	}
	sort.Strings(names)
	var removed []string
	var errs []error
	for _, n := range names {
		p := filepath.Join(dir, n)
		if live[n] || !isShardName(base, n) {
			continue
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) < grace {
			continue
		}
		if err := os.Remove(p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, n)
	}
	return removed, errors.Join(errs...)
}

func removeShards(dir string, names []string) {
	for _, n := range names {
		os.Remove(filepath.Join(dir, n))
	}
}

// buildShard writes shard i: rows [i*n/N, (i+1)*n/N) of every table (range)
// or the rows of hash slot i, and the index entries of those rows.
func buildShard(src *DB, path string, i int, o *ShardOptions) error {
	b, err := NewBuilder(&BuilderOptions{PageSize: o.PageSize, MemoryBudget: o.MemoryBudget / int64(o.Jobs),
		TempDir: o.TempDir, Metadata: src.info.Metadata})
	if err != nil {
		return err
	}
	defer b.Close()
	for _, t := range src.tables {
		tb, err := b.Table(t.name, &TableOptions{Encoding: t.enc, Compression: t.comp})
		if err != nil {
			return err
		}
		mine, err := copyShardRows(t, tb, i, o)
		if err != nil {
			return err
		}
		for _, ix := range t.indexes {
			ib, err := tb.AddIndex(ix.name, &IndexOptions{Unique: ix.unique, Encoding: ix.enc})
			if err != nil {
				return err
			}
			if mine == nil {
				continue // no rows here, so no entries
			}
			ic := ix.NewCursor(All, All)
			for ok := ic.First(); ok; ok = ic.Next() {
				if pk := ic.PrimaryKey(); mine(pk) {
					if err := ib.Add(ic.IndexKey(), pk); err != nil {
						ic.Close()
						return err
					}
				}
			}
			err = ic.Err()
			ic.Close()
			if err != nil {
				return err
			}
		}
	}
	_, err = b.BuildToFile(path)
	return err
}

// copyShardRows appends shard i's rows of t to tb and returns the test of
// whether a primary key is one of them (nil when none is).
func copyShardRows(t *Table, tb *TableBuilder, i int, o *ShardOptions) (func(pk []byte) bool, error) {
	c := t.NewCursor(All, All)
	defer c.Close()
	var copied bool
	if o.Partition == PartitionHash {
		for ok := c.First(); ok; ok = c.Next() {
			if HashSlot(c.Key(), o.Shards) == i {
				if err := tb.Append(c.Key(), c.Value()); err != nil {
					return nil, err
				}
				copied = true
			}
		}
		if err := cursorErr(c); err != nil || !copied {
			return nil, err
		}
		return func(pk []byte) bool { return HashSlot(pk, o.Shards) == i }, nil
	}
	n, rows := uint64(o.Shards), t.Len()
	lo, hi := uint64(i)*rows/n, (uint64(i)+1)*rows/n
	var loKey, hiKey []byte // the part's keys: [loKey, hiKey), hiKey nil for the last part
	for ok := c.SeekRow(lo); ok && c.Row() < hi; ok = c.Next() {
		if loKey == nil {
			loKey = bytes.Clone(c.Key())
		}
		if err := tb.Append(c.Key(), c.Value()); err != nil {
			return nil, err
		}
	}
	if err := cursorErr(c); err != nil || loKey == nil {
		return nil, err
	}
	if hi < rows && c.SeekRow(hi) {
		hiKey = bytes.Clone(c.Key())
	}
	return func(pk []byte) bool {
		return bytes.Compare(pk, loKey) >= 0 && (hiKey == nil || bytes.Compare(pk, hiKey) < 0)
	}, nil
}

// cursorErr is c's error, but for the end of a walk.
func cursorErr(c *Cursor) error {
	if err := c.Err(); err != nil && err != ErrClosed {
		return err
	}
	return nil
}
