package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/drydb/drydb/engine"
)

var shardCommand = &command{
	name:    "shard",
	args:    "INPUT -o OUT.manifest --shards N [--hash] [build flags] | --gc MANIFEST [--grace D]",
	summary: "build a sharded database: N range (or hash) shards built in parallel, and their manifest",
	setup:   func(fs *flag.FlagSet, c *ctx) { (&shardOpts{}).register(fs) },
	run:     nil, // shard parses its own arguments: see runShard
}

func init() {
	commandHelp["shard"] = `Writes INPUT as N shard files, each an ordinary drydb file holding one key
range of every table (equal row counts), and then OUT.manifest, which every
command and every language opens as one database (docs/FORMAT.md,
"Sharded databases"). Shards are named OUT-TAG-00000.drydb ... next to the
manifest; TAG is new for each run, so readers of an older manifest keep
their shards (delete those once no reader needs them).

INPUT is a drydb file (or a manifest), or CSV, TSV or JSON Lines inputs with
build's flags (drydb help build), which are first built into a temporary
file next to OUT (sorted with build's external sort, within --memory) and
then cut into shards.

  -o, --out FILE        the manifest to write (required)
  --shards N            number of shards (required)
  --jobs J              shards built at once (default: the number of CPUs)
  --memory SIZE         memory budget shared by the builds at once (default 256MiB)
  --temp-dir DIR        for spilled sort runs (default: the system's)
  --partition range|hash  how keys are spread over the shards (default range)
  --hash                same as --partition hash: shard i holds the keys whose
                        FNV-1a hash mod N is i (point lookups, counts, rank and
                        cursors; row numbers (at, seek to a row) are refused)

drydb shard --gc MANIFEST [--grace D] deletes the shards of older builds of
MANIFEST (files named MANIFEST-TAG-NNNNN.drydb that it does not list), once
both MANIFEST and those files are older than D (default 1h): readers of the
replaced version must have refreshed by then, as they open shards at first
use. On POSIX a shard a reader still has open stays readable after deletion;
on Windows an open shard cannot be deleted: it is reported and the next
--gc retries.

  --gc                  delete old shards instead of building
  --grace D             how old the manifest and the shards must be (1h, 30m)
`
}

type shardOpts struct {
	out, memory, tempDir, partition string
	shards, jobs                    int
	hash, gc                        bool
	grace                           time.Duration
}

func (o *shardOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "out", "", "write the manifest to `FILE`")
	fs.StringVar(&o.out, "o", "", "same as --out")
	fs.IntVar(&o.shards, "shards", 0, "number of `N` shards")
	fs.IntVar(&o.jobs, "jobs", 0, "shards built at once (default: CPUs)")
	fs.StringVar(&o.memory, "memory", "256MiB", "memory budget shared by the builds at once")
	fs.StringVar(&o.tempDir, "temp-dir", "", "`DIR` for temporary files (default: the system's)")
	fs.StringVar(&o.partition, "partition", engine.PartitionRange, "`range` or hash partitioning")
	fs.BoolVar(&o.hash, "hash", false, "same as --partition hash")
	fs.BoolVar(&o.gc, "gc", false, "delete the shards of older builds of MANIFEST")
	fs.DurationVar(&o.grace, "grace", time.Hour, "with --gc: the age of manifest and shards before deletion")
}

// runShard takes its own flags out of args; the rest go to build when the
// input is not a drydb file.
func runShard(c *ctx, args []string) error {
	o := &shardOpts{}
	fs := flag.NewFlagSet("shard", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.register(fs)
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" || a == "-help" {
			printCommandUsage(c.out, c.cmd, false)
			return flag.ErrHelp
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || fs.Lookup(name) == nil {
			rest = append(rest, a)
			continue
		}
		if bf, ok := fs.Lookup(name).Value.(interface{ IsBoolFlag() bool }); !hasVal && ok && bf.IsBoolFlag() {
			val = "true"
		} else if !hasVal {
			if i+1 == len(args) {
				return usagef("flag needs an argument: %s", a)
			}
			i++
			val = args[i]
		}
		if err := fs.Set(name, val); err != nil {
			return usagef("%s: %v", a, err)
		}
	}
	if o.gc {
		return runShardGC(c, o, rest)
	}
	if o.out == "" {
		return usagef("missing -o OUT.manifest")
	}
	if o.shards < 1 {
		return usagef("missing --shards N (at least 1)")
	}
	if len(rest) == 0 {
		return usagef("missing INPUT")
	}
	if o.hash {
		o.partition = engine.PartitionHash
	}
	if o.partition != engine.PartitionRange && o.partition != engine.PartitionHash {
		return usagef("--partition %q: range or hash", o.partition)
	}
	mem, err := parseSize(o.memory)
	if err != nil {
		return usagef("--memory: %v", err)
	}
	start := time.Now()
	// A drydb file (or a manifest) is cut as it is; anything else is input
	// for build.
	c.path = rest[0]
	src, err := engine.Open(rest[0], nil)
	if ext := strings.ToLower(filepath.Ext(rest[0])); err != nil && (len(rest) == 1 && (ext == ".drydb" || ext == ".manifest")) {
		return err
	}
	if err != nil || len(rest) > 1 {
		if src != nil {
			src.Close()
		}
		// build the inputs into a temporary file next to the manifest first
		tmp := filepath.Join(filepath.Dir(o.out), "."+filepath.Base(o.out)+".shard-input-"+strconv.Itoa(os.Getpid())+".drydb")
		defer os.Remove(tmp)
		bargs := append([]string{tmp, "--quiet", "--memory", o.memory}, rest...)
		if o.tempDir != "" {
			bargs = append(bargs, "--temp-dir", o.tempDir)
		}
		if err := runBuild(c, bargs); err != nil {
			return err
		}
		c.path = tmp
		if src, err = engine.Open(tmp, nil); err != nil {
			return err
		}
	}
	defer src.Close()
	c.path = o.out
	m, err := engine.BuildShards(src, o.out, &engine.ShardOptions{Shards: o.shards, Jobs: o.jobs, MemoryBudget: mem, TempDir: o.tempDir, Partition: o.partition})
	if err != nil {
		return err
	}
	var rows uint64
	for _, t := range m.Tables {
		for _, p := range t.Parts {
			rows += p.Rows
		}
	}
	fmt.Fprintf(c.out, "built %s: %d %s shards, %d tables, %d rows in %s\n", o.out, len(m.Shards), o.partition, len(m.Tables), rows, time.Since(start).Round(time.Millisecond))
	return nil
}

func runShardGC(c *ctx, o *shardOpts, rest []string) error {
	if len(rest) != 1 {
		return usagef("--gc takes one MANIFEST")
	}
	c.path = rest[0]
	gone, err := engine.ShardGC(rest[0], o.grace)
	for _, n := range gone {
		fmt.Fprintf(c.out, "removed %s\n", n)
	}
	if err == nil {
		fmt.Fprintf(c.out, "%d old shard files removed\n", len(gone))
	}
	return err
}
