package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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
	base = strings.TrimSuffix(base, filepath.Ext(base))
	tag := rand.Uint32()
	names := make([]string, o.Shards)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%08x-%05d.drydb", base, tag, i)
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
	m, err := RangeManifest(dir, names)
	if err == nil {
		err = WriteManifest(manifestPath, m)
	}
	if err != nil {
		removeShards(dir, names)
		return nil, err
	}
	return m, nil
}

func removeShards(dir string, names []string) {
	for _, n := range names {
		os.Remove(filepath.Join(dir, n))
	}
}

// buildShard writes shard i: rows [i*n/N, (i+1)*n/N) of every table and
// the index entries whose primary key lies in that part's key range.
func buildShard(src *DB, path string, i int, o *ShardOptions) error {
	b, err := NewBuilder(&BuilderOptions{PageSize: o.PageSize, MemoryBudget: o.MemoryBudget / int64(o.Jobs),
		TempDir: o.TempDir, Metadata: src.info.Metadata})
	if err != nil {
		return err
	}
	defer b.Close()
	n := uint64(o.Shards)
	for _, t := range src.tables {
		rows := t.Len()
		lo, hi := uint64(i)*rows/n, (uint64(i)+1)*rows/n
		tb, err := b.Table(t.name, &TableOptions{Encoding: t.enc, Compression: t.comp})
		if err != nil {
			return err
		}
		var loKey, hiKey []byte // the part's keys: [loKey, hiKey), hiKey nil for the last part
		c := t.NewCursor(All, All)
		for ok := c.SeekRow(lo); ok && c.Row() < hi; ok = c.Next() {
			if loKey == nil {
				loKey = bytes.Clone(c.Key())
			}
			if err := tb.Append(c.Key(), c.Value()); err != nil {
				c.Close()
				return err
			}
		}
		if err := c.Err(); err != nil && err != ErrClosed {
			c.Close()
			return err
		}
		if hi < rows && c.SeekRow(hi) {
			hiKey = bytes.Clone(c.Key())
		}
		c.Close()
		for _, ix := range t.indexes {
			ib, err := tb.AddIndex(ix.name, &IndexOptions{Unique: ix.unique, Encoding: ix.enc})
			if err != nil {
				return err
			}
			if loKey == nil {
				continue // no rows here, so no entries
			}
			ic := ix.NewCursor(All, All)
			for ok := ic.First(); ok; ok = ic.Next() {
				pk := ic.PrimaryKey()
				if bytes.Compare(pk, loKey) >= 0 && (hiKey == nil || bytes.Compare(pk, hiKey) < 0) {
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
