package engine_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/drydb/drydb/engine/internal/hostile/harness"
	"github.com/drydb/drydb/internal/fixture14"
)

// TestHostile14: damaged DryDB 1.4 fixtures (truncations, bit flips, 32-bit values written over
// lengths, counts, ordinals and offsets) read through every read call of the Go API in a child
// process under the hostile harness's limits (time, address space, resident memory): no crash,
// hang, memory blow-up, panic out of the API, error of another class than ErrCorrupt, or value
// outside the image. 1.4 has no checksums, so a file may read without error (a flipped value
// byte is a different value); HOSTILE14_N sets the number of files (default 200, 60 with -short).
func TestHostile14(t *testing.T) {
	skipUnderRace(t)
	n := 200
	if testing.Short() {
		n = 60
	}
	if v := os.Getenv("HOSTILE14_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("HOSTILE14_N: %v", err)
		}
	}
	paths, err := fixture14.Paths()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(20, 14))
	dir := t.TempDir()
	refused := 0
	for i := 0; i < n; i++ {
		src := paths[i%len(paths)]
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		b, edit := fixture14.Mutate(data, rng)
		p := filepath.Join(dir, strconv.Itoa(i)+".drydb")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		v := harness.RunChild(hostileChild(p), harness.DefaultLimits)
		if v.Class != "" {
			t.Errorf("%s, %s: %s: %s\n(%v, peak RSS %d MiB; stderr tail:)\n%s", filepath.Base(src), edit, v.Class, v.Detail, v.Elapsed.Round(time.Millisecond), v.MaxRSS>>20, tail(v.Tail, 1500))
			continue
		}
		if v.Result.Open == "corrupt" {
			refused++
		}
	}
	t.Logf("%d damaged 1.4 files: %d refused at open, the rest read without a fault", n, refused)
}
