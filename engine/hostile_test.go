package engine_test

// Hostile files: every checksum valid, the structure lying (issue 15).
// TestHostileCases runs the named attacks of the outside battery,
// TestHostileFuzz random structural edits of valid seeds; both read each
// file in a child process (this test binary, re-executed into
// TestHostileChild) under a time and an address-space limit, so that a
// crash, hang or memory blow-up fails the test instead of ending the run.
//
//	go test -run 'TestHostile' ./engine                        # cases + short fuzz (CI)
//	HOSTILE_N=100000 go test -run TestHostileFuzz -timeout 0 ./engine   # long fuzz
//
// HOSTILE_BASE picks the fuzz run's random seed (default 1, so CI tries the
// same files every time), HOSTILE_REPRO_DIR where failures are kept
// (default: a new directory under the system's temporary directory).
// docs/RELIABILITY.md ("Hostile files") has the figures.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/drydb/drydb/engine/internal/hostile"
	"github.com/drydb/drydb/engine/internal/hostile/harness"
)

const hostileChildEnv = "HOSTILE_CHILD_FILE"

// TestHostileChild is the child process of the hostile tests: it reads the
// file named by HOSTILE_CHILD_FILE through every read call and exits.
func TestHostileChild(t *testing.T) {
	file := os.Getenv(hostileChildEnv)
	if file == "" {
		t.Skip("the child process of TestHostileCases and TestHostileFuzz")
	}
	os.Exit(harness.ChildMain(file))
}

func hostileChild(file string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileChild$", "-test.count=1")
	cmd.Env = []string{hostileChildEnv + "=" + file}
	return cmd
}

var (
	seedMu    sync.Mutex
	seedCache = map[string]*harness.Seed{}
)

func hostileSeed(t *testing.T, name string) *harness.Seed {
	seedMu.Lock()
	defer seedMu.Unlock()
	if s := seedCache[name]; s != nil {
		return s
	}
	s, err := harness.BuildSeed(name)
	if err != nil {
		t.Fatal(err)
	}
	seedCache[name] = s
	return s
}

// TestHostileCases: each named case must be reported as corrupt (by open,
// or by Verify and by open with Options.Verify), every read call must
// answer with ErrCorrupt, ErrNotFound or a value inside the file, and the
// reader must stay within 30 s, 2 GiB of address space and 200 MiB
// resident.
func TestHostileCases(t *testing.T) {
	skipUnderRace(t)
	lim := harness.DefaultLimits
	lim.Timeout = 30 * time.Second
	for _, c := range hostile.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			s := hostileSeed(t, c.Seed)
			cr, err := c.Make(s.Data)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), c.Name+".drydb")
			if err := os.WriteFile(path, cr.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := harness.WriteProbes(path+".probes", cr.Probes); err != nil {
				t.Fatal(err)
			}
			v := harness.RunChild(hostileChild(path), lim)
			if v.Class != "" {
				t.Errorf("%s (%s): %s: %s\n(%v, peak RSS %d MiB; stderr tail:)\n%s", c.Name, c.Doc, v.Class, v.Detail, v.Elapsed.Round(time.Millisecond), v.MaxRSS>>20, tail(v.Tail, 1500))
				return
			}
			if r := v.Result; !r.Detected() {
				t.Errorf("%s (%s): not reported corrupt: open %s, open with Verify %s, Verify after reads %s (%d calls: %v)", c.Name, c.Doc, r.Open, r.OpenVerify, r.Verify, r.Calls, r.Classes)
			}
		})
	}
}

// TestHostileRoundTrip: a seed taken apart and written back without edits
// is the same file, byte for byte, so every checksum the crafting library
// recomputes is computed as the engine's writer does.
func TestHostileRoundTrip(t *testing.T) {
	names := append([]string{}, harness.FuzzSeeds...)
	for _, c := range hostile.Cases {
		names = append(names, c.Seed)
	}
	for _, name := range names {
		s := hostileSeed(t, name)
		fl, err := hostile.Parse(s.Data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, b := range fl.Blocks {
			b.Dirty = true // re-encoded: the same codec gives the same bytes
		}
		for _, r := range fl.Refs {
			r.Refresh = true
		}
		out, err := fl.Bytes()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(out, s.Data) {
			i := 0
			for i < len(out) && i < len(s.Data) && out[i] == s.Data[i] {
				i++
			}
			t.Errorf("%s: written back differs from offset %d (%d bytes, want %d)", name, i, len(out), len(s.Data))
		}
	}
}

func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("children under RLIMIT_AS cannot run with the race detector (see hostile_race_test.go)")
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// TestHostileFuzz crafts HOSTILE_N files (default 300, 100 with -short:
// 10 to 30 s on two cores when nothing hangs) from the seeds by 1-3 random structural edits each and reads
// every one in a child. Any crash, hang, memory blow-up, panic out of the
// API, error of another class than ErrCorrupt, value outside the file, or
// disagreement between Verify and the reads fails it; the reproducers
// (seed, crafted file, probes, edit list, verdict) are kept.
func TestHostileFuzz(t *testing.T) {
	skipUnderRace(t)
	n := 300
	if testing.Short() {
		n = 100
	}
	if v := os.Getenv("HOSTILE_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("HOSTILE_N: %v", err)
		}
	}
	base := int64(1)
	if v := os.Getenv("HOSTILE_BASE"); v != "" {
		var err error
		if base, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("HOSTILE_BASE: %v", err)
		}
	}
	repro := os.Getenv("HOSTILE_REPRO_DIR")
	if repro == "" {
		var err error
		if repro, err = os.MkdirTemp("", "drydb-hostile-repro-"); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := harness.Fuzz(harness.FuzzOptions{
		N: n, Base: base, WorkDir: t.TempDir(), ReproDir: repro, Parallel: 2,
		Limits: harness.DefaultLimits, Child: hostileChild, Log: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", rep.Summary())
	if rep.Failed > 0 {
		t.Errorf("%d of %d hostile files failed; reproducers in %s", rep.Failed, rep.Tried, repro)
	} else if os.Getenv("HOSTILE_REPRO_DIR") == "" {
		os.Remove(repro)
	}
}
