package harness

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/drydb/drydb/engine/internal/hostile"
)

// Crafted is one fuzzed file: which seed, which edits.
type Crafted struct {
	ID      int
	Seed    *Seed
	RngSeed int64
	Edits   []string
	Data    []byte
}

// Seeds builds every fuzz seed.
func Seeds() ([]*Seed, error) {
	var out []*Seed
	for _, n := range FuzzSeeds {
		s, err := BuildSeed(n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Craft makes fuzzed file i of a run with base seed base: a seed picked
// by the file's own random source, 1 to 3 structural edits, checksums
// recomputed. The same (seeds, base, i) give the same edits.
func Craft(seeds []*Seed, base int64, i int) (*Crafted, error) {
	rs := base*1_000_003 + int64(i)
	rng := rand.New(rand.NewSource(rs))
	s := seeds[rng.Intn(len(seeds))]
	fl, err := hostile.Parse(s.Data)
	if err != nil {
		return nil, fmt.Errorf("seed %s: %w", s.Name, err)
	}
	edits := hostile.Mutate(fl, rng, 1+rng.Intn(3))
	data, err := fl.Bytes()
	if err != nil {
		return nil, err
	}
	return &Crafted{ID: i, Seed: s, RngSeed: rs, Edits: edits, Data: data}, nil
}

// Write stores the crafted file as dir/NAME.drydb with its probes file
// and its edit list (NAME.drydb.edits), and returns the file's path.
func (c *Crafted) Write(dir, name string) (string, error) {
	p := filepath.Join(dir, name+".drydb")
	if err := os.WriteFile(p, c.Data, 0o644); err != nil {
		return "", err
	}
	if err := WriteProbes(p+".probes", c.Seed.Probes); err != nil {
		return "", err
	}
	if err := WriteCLIKeys(p+".cli", c.Seed.Name, c.Seed.Probes); err != nil {
		return "", err
	}
	desc := fmt.Sprintf("seed %s, file %d, random source %d\n%s\n", c.Seed.Name, c.ID, c.RngSeed, strings.Join(c.Edits, "\n"))
	return p, os.WriteFile(p+".edits", []byte(desc), 0o644)
}

// FuzzOptions configure a fuzz run.
type FuzzOptions struct {
	N        int
	Base     int64  // base random seed
	WorkDir  string // crafted files are written here, removed after a pass
	ReproDir string // failures are kept here (seed, crafted file, probes, edits, output)
	Parallel int
	Limits   Limits
	// Child returns the command that reads a file in a child (ChildMain).
	Child func(file string) *exec.Cmd
	Log   func(format string, args ...any)
}

// FuzzReport tallies a run.
type FuzzReport struct {
	Tried, Failed int
	ByClass       map[string]int // failures by class
	ByEdit        map[string]int // failures by edit kind (each kind in the file's edit list)
	Outcomes      map[string]int // every file: "open corrupt", "verify corrupt", "undetected"
	Repros        []string
	Elapsed       time.Duration
}

// Fuzz crafts N files and reads each in a child under the limits.
func Fuzz(o FuzzOptions) (*FuzzReport, error) {
	start := time.Now()
	seeds, err := Seeds()
	if err != nil {
		return nil, err
	}
	if o.Parallel < 1 {
		o.Parallel = 1
	}
	rep := &FuzzReport{ByClass: map[string]int{}, ByEdit: map[string]int{}, Outcomes: map[string]int{}}
	var mu sync.Mutex
	var firstErr error
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < o.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				c, err := Craft(seeds, o.Base, i)
				if err == nil {
					err = fuzzOne(o, c, rep, &mu)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < o.N; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	sort.Strings(rep.Repros)
	rep.Elapsed = time.Since(start)
	return rep, firstErr
}

func fuzzOne(o FuzzOptions, c *Crafted, rep *FuzzReport, mu *sync.Mutex) error {
	name := fmt.Sprintf("f%06d", c.ID)
	path, err := c.Write(o.WorkDir, name)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	defer os.Remove(path + ".probes")
	defer os.Remove(path + ".edits")
	defer os.Remove(path + ".cli")
	v := RunChild(o.Child(path), o.Limits)
	mu.Lock()
	defer mu.Unlock()
	rep.Tried++
	switch r := v.Result; {
	case r == nil:
	case firstChecksum(r.FirstCorrupt):
		// Every checksum was recomputed: only an edit that points where no
		// page or block starts, or a header page-size edit (pages then cut
		// elsewhere), should end here; anything else is a crafting bug.
		rep.Outcomes["caught by a checksum"]++
		if o.Log != nil {
			o.Log("file %d (seed %s) was caught by a checksum: %s\n  edits: %s", c.ID, c.Seed.Name, r.FirstCorrupt, strings.Join(c.Edits, "; "))
		}
	case r.Open == "corrupt" || r.OpenVerify == "corrupt" && r.Open != "ok":
		rep.Outcomes["open: corrupt"]++
	case r.Open != "ok":
		rep.Outcomes["open: "+r.Open]++
	case r.Verify == "corrupt":
		rep.Outcomes["verify: corrupt"]++
	default:
		rep.Outcomes["undetected (harmless edit or a gap)"]++
	}
	if v.Class == "" {
		return nil
	}
	rep.Failed++
	rep.ByClass[v.Class]++
	seen := map[string]bool{}
	for _, e := range c.Edits {
		k, _, _ := strings.Cut(e, ":")
		if !seen[k] {
			rep.ByEdit[k]++
			seen[k] = true
		}
	}
	if o.Log != nil {
		o.Log("file %d (seed %s): %s: %s\n  edits: %s", c.ID, c.Seed.Name, v.Class, v.Detail, strings.Join(c.Edits, "; "))
	}
	if o.ReproDir == "" {
		return nil
	}
	dir := filepath.Join(o.ReproDir, fmt.Sprintf("%s-%06d", v.Class, c.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := c.Write(dir, "crafted"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "seed.drydb"), c.Seed.Data, 0o644); err != nil {
		return err
	}
	out := fmt.Sprintf("class: %s\ndetail: %s\nelapsed: %v\npeak RSS: %d MiB\n--- stderr tail ---\n%s", v.Class, v.Detail, v.Elapsed, v.MaxRSS>>20, v.Tail)
	rep.Repros = append(rep.Repros, dir)
	return os.WriteFile(filepath.Join(dir, "verdict.txt"), []byte(out), 0o644)
}

// firstChecksum reports whether the first problem found (Verify joins
// several, one per line) was a checksum other than an overflow value's,
// whose checksum edits may leave wrong on purpose.
func firstChecksum(err string) bool {
	first, _, _ := strings.Cut(err, "\n")
	return strings.Contains(first, "checksum mismatch") && !strings.Contains(first, "overflow value")
}

// Summary formats a report.
func (r *FuzzReport) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d files, %d passed, %d failed in %v\n", r.Tried, r.Tried-r.Failed, r.Failed, r.Elapsed.Round(time.Second))
	put := func(title string, m map[string]int) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s %-40s %d\n", title, k, m[k])
		}
	}
	put("outcome", r.Outcomes)
	put("failure", r.ByClass)
	put("edit of failures", r.ByEdit)
	return b.String()
}
