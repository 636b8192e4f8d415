package engine

import (
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	f "github.com/drydb/drydb/engine/internal/format"
	"github.com/drydb/drydb/engine/keyenc"
	"github.com/drydb/drydb/internal/osfile"
)

// Options configure Open. The zero value (or nil) is usable.
type Options struct {
	// Verify checks every checksum and the whole tree structure at open
	// (cost: one read of the file). Without it, each page is checked the
	// first time this process touches it.
	Verify bool
	// CacheBytes bounds the memory holding decompressed pages of compressed
	// tables; 0 means 64 MiB. Plain tables are read from the mapping and use
	// no cache.
	CacheBytes int64
}

// Info describes a database file.
type Info struct {
	FormatVersion uint32
	PageSize      int
	FileSize      int64
	Created       time.Time
	BuildID       [16]byte
	Metadata      map[string][]byte
}

// DB is an open database file. It is safe for concurrent use by any number
// of goroutines; reads take no locks. Close it when done: byte slices
// returned by its tables point into the mapping and are invalid after Close.
type DB struct {
	data     []byte
	mapped   bool
	ps       int
	pshift   uint
	npages   uint64
	verified []atomic.Uint64
	info     Info
	tables   []*Table
	byName   map[string]*Table
	cache    *cache
	cacheIDs uint16
	// ovf records overflow values whose checksum has been checked: page
	// number -> ovfCheck. Not the page bitmap: that one means "checked as
	// a tree page", and a value's bytes may lie (in a hostile file) over a
	// tree page.
	ovf    sync.Map
	closed atomic.Bool
	// release frees an image the DB built itself (a translated DryDB 1.4 file, open14.go).
	release func()
	// shards and manifest are set for a sharded database (shard.go): its
	// tables then route every read to the shards.
	shards   *shardSet
	manifest *Manifest
}

// Open maps the file at path read-only. It takes no lock and writes nothing,
// so it works on read-only media and from any number of processes.
func Open(path string, opts *Options) (*DB, error) {
	if isManifest(path) {
		return OpenManifest(path, opts)
	}
	fl, err := osfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("drydb: %w", err)
	}
	defer fl.Close() // the mapping outlives the file
	return openFile(fl, path, opts)
}

// openFile is Open of a file already open (Live keeps it, to tell whether
// the path still names it).
func openFile(fl *osfile.File, path string, opts *Options) (*DB, error) {
	size := fl.Size
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%w: file of %d bytes does not fit the address space", ErrTooLarge, size)
	}
	data, err := fl.Map() // nil for an empty file
	if err != nil {
		return nil, fmt.Errorf("drydb: mapping %s: %w", path, err)
	}
	if is14(data) {
		defer osfile.Unmap(data) // the translation keeps nothing of it
		return openBytes(data, opts)
	}
	if size < int64(f.MinPageSize+f.FooterSize) {
		if data != nil {
			osfile.Unmap(data)
		}
		return nil, corruptAt(0, "file of %d bytes is too short to be a drydb file", size)
	}
	db, err := openData(data, opts)
	if err != nil {
		osfile.Unmap(data)
		return nil, err
	}
	db.mapped = true
	return db, nil
}

// OpenBytes opens a database held in memory. data must stay unmodified and
// alive until Close; values returned point into it. A DryDB 1.4 file is
// translated (open14.go): its DB keeps nothing of data.
func OpenBytes(data []byte, opts *Options) (*DB, error) {
	return openBytes(data, opts)
}

func openData(data []byte, opts *Options) (db *DB, err error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	// A file truncated underneath us faults on access; turn that into an
	// error rather than a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, faultError(r)
		}
	}()
	db = &DB{data: data, byName: map[string]*Table{}}
	if err := db.readHeader(); err != nil {
		return nil, err
	}
	cacheBytes := o.CacheBytes
	if cacheBytes <= 0 {
		cacheBytes = 64 << 20
	}
	// The cache never needs more than every compressed leaf decoded at once.
	var need int64 // bytes; Leaves is bounded by the file (checkTree)
	for _, t := range db.tables {
		if t.codec != nil {
			need = min(need+int64(t.tree.desc.Leaves+1)*int64(db.ps), cacheBytes)
		}
	}
	if need > 0 {
		if db.cache, err = newCache(min(cacheBytes, need), db.ps); err != nil {
			return nil, err
		}
	}
	if o.Verify {
		if err := db.Verify(); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

func faultError(r any) error {
	if e, ok := r.(error); ok {
		return fmt.Errorf("%w: %v (was the file truncated or changed while open?)", ErrCorrupt, e)
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, r)
}

// readHeader validates, in order: magic, version, header checksum, page
// size, footer, catalog checksum, catalog bounds.
func (db *DB) readHeader() error {
	d := db.data
	size := uint64(len(d))
	if [8]byte(d[:8]) != f.Magic {
		return corruptAt(0, "not a drydb file (bad magic)")
	}
	version := f.U32(d, f.HdrVersion)
	if version < f.MinVersion || version > f.Version {
		return fmt.Errorf("%w: file has format version %d, this engine reads versions %d to %d", ErrVersion, version, f.MinVersion, f.Version)
	}
	if f.CRC(d[:f.HdrCRC]) != f.U32(d, f.HdrCRC) {
		return corruptAt(0, "header checksum mismatch")
	}
	ps := int(f.U32(d, f.HdrPageSize))
	if ps < f.MinPageSize || ps > f.MaxPageSize || ps&(ps-1) != 0 {
		return corruptAt(f.HdrPageSize, "bad page size %d", ps)
	}
	db.ps = ps
	for 1<<db.pshift != ps {
		db.pshift++
	}
	ftr := d[size-f.FooterSize:]
	if [8]byte(ftr[f.FtrMagic:]) != f.Magic {
		return corruptAt(int64(size-f.FooterSize), "footer missing: the file is truncated or has data appended")
	}
	if f.CRC(ftr[:f.FtrCRC]) != f.U32(ftr, f.FtrCRC) {
		return corruptAt(int64(size-f.FooterSize), "footer checksum mismatch")
	}
	if fl := f.U64(ftr, f.FtrFileLen); fl != size {
		return corruptAt(int64(size-f.FooterSize), "file is %d bytes, footer says %d", size, fl)
	}
	catOff, catLen := f.U64(ftr, f.FtrCatalogOff), f.U64(ftr, f.FtrCatalogLen)
	db.npages = f.U64(ftr, f.FtrPageCount)
	// The page count is bounded by the file before it is multiplied (a count
	// of 2^48 + n at 64 KiB pages would wrap to n pages' worth) and before
	// the bitmap below is sized from it.
	if db.npages > size/uint64(ps) || catOff%uint64(ps) != 0 || catOff != db.npages*uint64(ps) ||
		catOff > size-f.FooterSize || catLen > size-f.FooterSize-catOff {
		return corruptAt(int64(size-f.FooterSize), "catalog location out of range")
	}
	cb := d[catOff : catOff+catLen]
	if f.CRC(cb) != f.U32(ftr, f.FtrCatalogCRC) {
		return corruptAt(int64(catOff), "catalog checksum mismatch")
	}
	cat, err := f.DecodeCatalog(cb, version)
	if err != nil {
		return corruptAt(int64(catOff), "%v", err)
	}
	db.verified = make([]atomic.Uint64, (db.npages+63)/64)
	db.info = Info{FormatVersion: version, PageSize: ps, FileSize: int64(size),
		Created: time.Unix(0, cat.Created), BuildID: cat.BuildID, Metadata: map[string][]byte{}}
	for _, kv := range cat.Meta {
		db.info.Metadata[string(kv.Key)] = kv.Value
	}
	// Regions first, from the descriptors alone: a file of many tables
	// sharing pages is refused before anything is built for them.
	if err := db.checkRegions(cat, int64(catOff)); err != nil {
		return err
	}
	for i := range cat.Tables {
		t, err := db.newTable(&cat.Tables[i], int64(catOff))
		if err != nil {
			return err
		}
		if _, dup := db.byName[t.name]; dup {
			return corruptAt(int64(catOff), "table %q appears twice", t.name)
		}
		db.tables = append(db.tables, t)
		db.byName[t.name] = t
	}
	return nil
}

// checkRegions makes sure that no two trees share a page. A page's checked
// bit then means "checked as a node of the one tree whose region holds it"
// (with that tree's key width, at the level its header states), so a
// reference from another tree can never reach a page checked under other
// rules, and Verify, which walks each tree once, reads each page once.
func (db *DB) checkRegions(cat *f.Catalog, catOff int64) error {
	type region struct {
		lo, hi uint64
		tbl    int
		index  int // -1: the table's own tree, -2: its hash index
	}
	var rs []region
	add := func(tr *f.Tree, tbl, index int) {
		if tr.FirstPage < tr.LastPage {
			rs = append(rs, region{tr.FirstPage, tr.LastPage, tbl, index})
		}
	}
	for i := range cat.Tables {
		add(&cat.Tables[i].Tree, i, -1)
		if h := cat.Tables[i].Hash; h.FirstPage < h.LastPage {
			rs = append(rs, region{h.FirstPage, h.LastPage, i, -2})
		}
		for j := range cat.Tables[i].Indexes {
			add(&cat.Tables[i].Indexes[j].Tree, i, j)
		}
	}
	what := func(r region) string {
		t := &cat.Tables[r.tbl]
		if r.index == -2 {
			return fmt.Sprintf("the hash index of table %q", t.Name)
		}
		if r.index < 0 {
			return fmt.Sprintf("table %q", t.Name)
		}
		return fmt.Sprintf("index %q of table %q", t.Indexes[r.index].Name, t.Name)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	for i := 1; i < len(rs); i++ {
		if rs[i].lo < rs[i-1].hi {
			return corruptAt(catOff, "%s and %s share pages %d..%d", what(rs[i-1]), what(rs[i]), rs[i].lo, min(rs[i].hi, rs[i-1].hi)-1)
		}
	}
	return nil
}

func (db *DB) checkTree(tr *f.Tree, blocks bool, catOff int64, what string) error {
	if tr.Depth > f.MaxDepth || tr.FirstPage > tr.LastPage || tr.LastPage > db.npages ||
		tr.FirstPage == 0 && tr.LastPage != 0 {
		return corruptAt(catOff, "%s: tree descriptor out of range", what)
	}
	if tr.Depth == 0 {
		if tr.Rows != 0 {
			return corruptAt(catOff, "%s: empty tree with rows", what)
		}
		return nil
	}
	// Counts the region could not hold are corrupt (sizes computed from
	// them must not overflow): a leaf is a page, or a block of at least its
	// header, and holds fewer entries than its page has bytes.
	maxLeaves := tr.LastPage - tr.FirstPage
	if blocks {
		maxLeaves = maxLeaves << db.pshift / f.BlockHeaderSize
	}
	if tr.Leaves == 0 || tr.Leaves > maxLeaves || tr.Rows == 0 || tr.Rows/uint64(db.ps) >= tr.Leaves {
		return corruptAt(catOff, "%s: %d rows in %d leaves cannot fit pages %d..%d", what, tr.Rows, tr.Leaves, tr.FirstPage, tr.LastPage)
	}
	if blocks && tr.Depth == 1 {
		if tr.Root < tr.FirstPage<<db.pshift || tr.Root >= tr.LastPage<<db.pshift {
			return corruptAt(catOff, "%s: root block out of range", what)
		}
	} else if tr.Root < tr.FirstPage || tr.Root >= tr.LastPage || tr.Root == 0 {
		return corruptAt(catOff, "%s: root page %d out of range", what, tr.Root)
	}
	return nil
}

func (db *DB) newTable(ct *f.Table, catOff int64) (*Table, error) {
	enc, err := keyenc.UnmarshalEncoding(ct.Encoding)
	if err != nil {
		return nil, corruptAt(catOff, "table %q: key encoding: %v", ct.Name, err)
	}
	t := &Table{db: db, name: ct.Name, enc: enc,
		comp: Compression{Kind: CompressionKind(ct.Compression), Level: int(ct.Level), Dictionary: ct.DictLen > 0, Filter: ct.Filter}}
	what := fmt.Sprintf("table %q", ct.Name)
	if t.comp.Kind > CompressS2 {
		return nil, corruptAt(catOff, "%s: unknown compression %d", what, ct.Compression)
	}
	blocks := t.comp.Kind != CompressNone || t.comp.Filter != ""
	if err := db.checkTree(&ct.Tree, blocks, catOff, what); err != nil {
		return nil, err
	}
	if blocks {
		var dictBytes []byte
		if ct.DictLen > 0 {
			if ct.DictOffset > uint64(len(db.data)) || ct.DictLen > uint64(len(db.data))-ct.DictOffset {
				return nil, corruptAt(catOff, "%s: dictionary out of range", what)
			}
			dictBytes = db.data[ct.DictOffset : ct.DictOffset+ct.DictLen]
			if f.CRC(dictBytes) != ct.DictCRC {
				return nil, corruptAt(int64(ct.DictOffset), "%s: dictionary checksum mismatch", what)
			}
		}
		// No zstd state is made here: a table's decoder comes from the
		// process's shared decoders at its first decode, so opening a file
		// of many compressed tables costs a small constant per table.
		codec, err := newReadCodec(t.comp, dictBytes, db.ps)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		t.codec = codec
	}
	t.tree = tree{db: db, desc: ct.Tree, codec: t.codec, name: what, k8: fixed8(enc)}
	if h := ct.Hash; h.FirstPage != h.LastPage {
		var leaves uint64 // a compressed table's: block offset pages come first
		if blocks {
			leaves = ct.Tree.Leaves
		}
		if h.FirstPage == 0 || h.FirstPage > h.LastPage || h.LastPage > db.npages || h.MaxProbe > f.HashMaxProbe ||
			ct.Tree.Depth == 0 || h.LastPage-h.FirstPage <= f.HashBlockPages(leaves, db.pshift) {
			return nil, corruptAt(catOff, "%s: hash index descriptor out of range", what)
		}
		t.tree.hash = newHashIndex(h, db.pshift, leaves)
	}
	if t.codec != nil {
		if db.cacheIDs == 1<<16-1 {
			return nil, fmt.Errorf("%w: more than %d compressed tables", ErrTooLarge, 1<<16-1)
		}
		db.cacheIDs++
		t.tree.cacheID = db.cacheIDs
	}
	for i := range ct.Indexes {
		ci := &ct.Indexes[i]
		ienc, err := keyenc.UnmarshalEncoding(ci.Encoding)
		if err != nil {
			return nil, corruptAt(catOff, "index %q: key encoding: %v", ci.Name, err)
		}
		iwhat := fmt.Sprintf("index %q", ci.Name)
		if err := db.checkTree(&ci.Tree, false, catOff, iwhat); err != nil {
			return nil, err
		}
		ix := &Index{t: t, name: ci.Name, unique: ci.Unique, enc: ienc, tree: tree{db: db, desc: ci.Tree, name: iwhat}}
		t.indexes = append(t.indexes, ix)
	}
	sort.Slice(t.indexes, func(i, j int) bool { return t.indexes[i].name < t.indexes[j].name })
	return t, nil
}

// Close unmaps the file. Slices returned by reads become invalid. Close is
// idempotent; every method of a closed DB returns ErrClosed.
func (db *DB) Close() error {
	if db == nil || !db.closed.CompareAndSwap(false, true) {
		return nil
	}
	if db.cache != nil {
		db.cache.free()
	}
	if db.release != nil {
		db.release()
	}
	if db.shards != nil {
		db.shards.close()
	}
	if db.mapped {
		return osfile.Unmap(db.data)
	}
	return nil
}

// Tables returns the table names in file order.
func (db *DB) Tables() []string {
	names := make([]string, len(db.tables))
	for i, t := range db.tables {
		names[i] = t.name
	}
	return names
}

// Table returns the named table.
func (db *DB) Table(name string) (*Table, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	t, ok := db.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoTable, name)
	}
	return t, nil
}

// Info describes the file.
func (db *DB) Info() Info { return db.info }

// CacheStats reports the page cache of compressed tables.
type CacheStats struct {
	Hits, Misses, Evictions uint64
	Bytes                   uint64 // bytes of decoded pages resident
	Capacity                uint64
}

// CacheStats returns the current cache figures (zero without compressed tables).
func (db *DB) CacheStats() CacheStats {
	if db.shards != nil {
		return db.shards.cacheStats()
	}
	if db.cache == nil {
		return CacheStats{}
	}
	return db.cache.stats()
}

// page returns plain page pgno, checking it the first time this process
// touches it (checksum and structure). Later reads pay one atomic load.
func (db *DB) page(pgno uint64, level int, t *tree) ([]byte, error) {
	if pgno == 0 || pgno >= db.npages {
		return nil, &CorruptError{Page: pgno, Offset: int64(pgno) << db.pshift, Reason: "page number out of range"}
	}
	off := pgno << db.pshift
	p := db.data[off : off+uint64(db.ps) : off+uint64(db.ps)]
	w := &db.verified[pgno>>6]
	bit := uint64(1) << (pgno & 63)
	if w.Load()&bit == 0 {
		if err := db.checkAndMark(pgno, p, level, t); err != nil {
			return nil, err
		}
	} else if nodeLevel(p) != level {
		return nil, &CorruptError{Page: pgno, Offset: int64(off), Reason: "page reached at the wrong level"}
	}
	return p, nil
}

// checkAndMark checks page pgno (p) as a node of tree t at level and, when
// it passes, sets its checked bit.
func (db *DB) checkAndMark(pgno uint64, p []byte, level int, t *tree) error {
	if err := db.checkPage(pgno, p, level, t); err != nil {
		return err
	}
	if level == 0 && t.k8 {
		t.noteLeaf(p) // before the bit: see tree.stride
	}
	db.verified[pgno>>6].Or(1 << (pgno & 63))
	return nil
}

func (db *DB) checkPage(pgno uint64, p []byte, level int, t *tree) error {
	if f.CRC(p[4:]) != f.U32(p, f.PgCRC) {
		return &CorruptError{Page: pgno, Offset: int64(pgno) << db.pshift, Reason: "checksum mismatch"}
	}
	if r := checkNode(p, level, t.width(), t.ovfArea()); r != "" {
		return &CorruptError{Page: pgno, Offset: int64(pgno) << db.pshift, Reason: r}
	}
	return nil
}

// ovfCheck is what was checked of the overflow value at a page.
type ovfCheck struct {
	len uint64
	crc uint32
}

// overflow returns an overflow value, checking its CRC the first time this
// reference (page, length and checksum) is read; verify re-checks always.
// checkNode checked that the value lies inside its tree's region.
func (db *DB) overflow(ref []byte, verify bool) ([]byte, error) {
	pg, ln, crc := f.U64(ref, 0), f.U64(ref, 8), f.U32(ref, 16)
	off := pg << db.pshift
	v := db.data[off : off+ln : off+ln]
	want := ovfCheck{ln, crc}
	if c, ok := db.ovf.Load(pg); !ok || verify || *c.(*ovfCheck) != want {
		if f.CRC(v) != crc {
			return nil, &CorruptError{Page: pg, Offset: int64(off), Reason: "overflow value checksum mismatch"}
		}
		if !ok {
			db.ovf.Store(pg, &want)
		}
	}
	return v, nil
}
