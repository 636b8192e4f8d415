// Command hostile crafts hostile drydb files and reads them (issue 15).
//
//	hostile gen [-n N] [-base B] [-cases] DIR   write N fuzzed files (and the named cases) to DIR
//	hostile read FILE                           read FILE with every Go read call; exit 1 on a failure
//	hostile fuzz [-n N] [-base B] [-repro DIR] [-parallel P]
//	                                            the long fuzz run: each file read in a child process
//	hostile child FILE                          (the child of fuzz)
//
// Every crafted FILE comes with FILE.probes (keys to get first, read by
// the Go and C readers), FILE.cli (tables, keys and indexes for the CLI)
// and FILE.edits (the seed and the edits, or the case). Run from the repository root:
//
//	go run ./engine/internal/hostile/cmd/hostile fuzz -n 100000 -repro /tmp/repro
//
// tests/hostile/run.sh runs gen, then this reader, the C driver and the CLI
// over every file.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/drydb/drydb/engine/internal/hostile"
	"github.com/drydb/drydb/engine/internal/hostile/harness"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "gen":
		os.Exit(gen(args))
	case "read":
		os.Exit(read(args))
	case "fuzz":
		os.Exit(fuzz(args))
	case "child":
		if len(args) != 1 {
			usage()
		}
		os.Exit(harness.ChildMain(args[0]))
	}
	usage()
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: hostile gen [-n N] [-base B] [-cases] DIR | read FILE | fuzz [-n N] [-base B] [-repro DIR] [-parallel P]")
	os.Exit(2)
}

func gen(args []string) int {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int("n", 100, "fuzzed files to write")
	base := fs.Int64("base", 1, "random seed of the run")
	cases := fs.Bool("cases", false, "also write the named cases (case-NAME.drydb)")
	fs.Parse(args)
	if fs.NArg() != 1 {
		usage()
	}
	dir := fs.Arg(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	seeds, err := harness.Seeds()
	if err != nil {
		return fail(err)
	}
	for i := 0; i < *n; i++ {
		c, err := harness.Craft(seeds, *base, i)
		if err != nil {
			return fail(err)
		}
		if _, err := c.Write(dir, fmt.Sprintf("f%06d", i)); err != nil {
			return fail(err)
		}
	}
	if *cases {
		for _, c := range hostile.Cases {
			s, err := harness.BuildSeed(c.Seed)
			if err != nil {
				return fail(err)
			}
			cr, err := c.Make(s.Data)
			if err != nil {
				return fail(fmt.Errorf("case %s: %w", c.Name, err))
			}
			p := filepath.Join(dir, "case-"+c.Name+".drydb")
			if err := os.WriteFile(p, cr.Data, 0o644); err != nil {
				return fail(err)
			}
			if err := harness.WriteProbes(p+".probes", cr.Probes); err != nil {
				return fail(err)
			}
			if err := harness.WriteCLIKeys(p+".cli", c.Seed, s.Probes); err != nil {
				return fail(err)
			}
			if err := os.WriteFile(p+".edits", []byte("case "+c.Name+": "+c.Doc+"\n"), 0o644); err != nil {
				return fail(err)
			}
		}
	}
	return 0
}

// read is the Go reader of tests/hostile/run.sh: every read call, then a
// verdict line; exit 1 when a read misbehaved (panic out of the API, an
// error of another class, a slice outside the file, Verify disagreeing
// with the reads). A crash, hang or memory blow-up is the caller's to see.
func read(args []string) int {
	if len(args) != 1 {
		usage()
	}
	if err := harness.LimitSelf(); err != nil {
		return fail(err)
	}
	probes, err := harness.ReadProbes(args[0] + ".probes")
	if err != nil && !os.IsNotExist(err) {
		return fail(err)
	}
	r := harness.Exercise(args[0], harness.ExerciseOptions{Probes: probes})
	fmt.Printf("open %s, open with verify %s, verify %s, %d calls %v\n", r.Open, r.OpenVerify, r.Verify, r.Calls, r.Classes)
	if r.FirstCorrupt != "" {
		fmt.Printf("first corrupt: %s\n", r.FirstCorrupt)
	}
	for _, a := range r.Anomalies {
		fmt.Printf("FAIL %s: %s: %s\n", a.Class, a.Call, a.Detail)
	}
	if len(r.Anomalies) > 0 {
		return 1
	}
	return 0
}

func fuzz(args []string) int {
	fs := flag.NewFlagSet("fuzz", flag.ExitOnError)
	n := fs.Int("n", 1000, "files to craft and read")
	base := fs.Int64("base", 1, "random seed of the run")
	repro := fs.String("repro", "hostile-repro", "directory for the reproducers of failures")
	par := fs.Int("parallel", 2, "children at once")
	fs.Parse(args)
	work, err := os.MkdirTemp("", "drydb-hostile-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(work)
	self, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	rep, err := harness.Fuzz(harness.FuzzOptions{
		N: *n, Base: *base, WorkDir: work, ReproDir: *repro, Parallel: *par, Limits: harness.DefaultLimits,
		Child: func(file string) *exec.Cmd { return exec.Command(self, "child", file) },
		Log: func(format string, a ...any) {
			fmt.Fprintf(os.Stderr, strings.TrimRight(format, "\n")+"\n", a...)
		},
	})
	if err != nil {
		return fail(err)
	}
	fmt.Print(rep.Summary())
	if rep.Failed > 0 {
		fmt.Printf("reproducers in %s\n", *repro)
		return 1
	}
	return 0
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "hostile:", err)
	return 1
}
