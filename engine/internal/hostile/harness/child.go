package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Limits bound a child process.
type Limits struct {
	Timeout time.Duration
	// AddressSpace is the child's RLIMIT_AS. The Go runtime reserves
	// address space up front (about 1 GiB for a test binary here), so
	// limits below ~1.5 GiB fail healthy children.
	AddressSpace uint64
	// MaxRSS fails a child whose peak resident set exceeds it, even when it
	// ended well (a block that decodes to 64 MB before being refused).
	MaxRSS int64
}

// DefaultLimits fit every healthy read of the seeds with a wide margin
// (measured: peak RSS below 60 MB, under a second each).
var DefaultLimits = Limits{Timeout: 10 * time.Second, AddressSpace: 2 << 30, MaxRSS: 200 << 20}

// LimitEnv carries the address-space limit to a child, which applies it
// to itself (LimitSelf) before reading anything.
const LimitEnv = "HOSTILE_RLIMIT_AS"

// LimitSelf sets RLIMIT_AS from LimitEnv, if set.
func LimitSelf() error {
	v := os.Getenv(LimitEnv)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return err
	}
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
}

// ChildMain is the child's side: limit itself, read file with every read
// call (probes from file + ".probes" when present), report progress on
// stderr and the Result as one JSON line on stdout.
func ChildMain(file string) int {
	if err := LimitSelf(); err != nil {
		fmt.Fprintln(os.Stderr, "hostile: setrlimit:", err)
		return 3
	}
	probes, err := ReadProbes(file + ".probes")
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		return 3
	}
	res := Exercise(file, ExerciseOptions{Probes: probes, Progress: os.Stderr})
	b, _ := json.Marshal(res)
	fmt.Printf("RESULT %s\n", b)
	return 0
}

// Verdict is a child's outcome. Class "" is a pass.
type Verdict struct {
	Class   string // crash, hang, oom, memory, or an Anomaly class
	Detail  string
	Result  *Result
	Elapsed time.Duration
	MaxRSS  int64  // peak resident set: the child's VmHWM, or its rusage when it died
	Tail    string // the end of the child's stderr
}

// RunChild runs cmd (which must call ChildMain) under lim and judges it.
func RunChild(cmd *exec.Cmd, lim Limits) Verdict {
	ctx, cancel := context.WithTimeout(context.Background(), lim.Timeout)
	defer cancel()
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	c.Env = append(os.Environ(), cmd.Env...)
	if lim.AddressSpace > 0 {
		c.Env = append(c.Env, fmt.Sprintf("%s=%d", LimitEnv, lim.AddressSpace))
	}
	var out bytes.Buffer
	tail := &tailBuffer{max: 8 << 10}
	c.Stdout, c.Stderr = &out, tail
	start := time.Now()
	err := c.Run()
	v := Verdict{Elapsed: time.Since(start), Tail: tail.String()}
	if c.ProcessState != nil {
		if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
			v.MaxRSS = ru.Maxrss << 10
		}
	}
	if s := out.String(); strings.Contains(s, "RESULT ") {
		line := s[strings.LastIndex(s, "RESULT ")+len("RESULT "):]
		var r Result
		if json.Unmarshal([]byte(strings.TrimSpace(line)), &r) == nil {
			v.Result = &r
		}
	}
	if v.Result != nil && v.Result.PeakRSS > 0 {
		v.MaxRSS = v.Result.PeakRSS
	}
	lastCall := tail.lastCall
	switch {
	case ctx.Err() != nil:
		v.Class, v.Detail = "hang", fmt.Sprintf("killed after %v in %q", lim.Timeout, lastCall)
	case strings.Contains(tail.reason, "out of memory") || strings.Contains(tail.reason, "cannot allocate memory"):
		v.Class, v.Detail = "oom", fmt.Sprintf("%s (RLIMIT_AS %d MiB) in %q", tail.reason, lim.AddressSpace>>20, lastCall)
	case err != nil || v.Result == nil:
		v.Class, v.Detail = "crash", fmt.Sprintf("%v in %q: %s", err, lastCall, tail.reason)
	case len(v.Result.Anomalies) > 0:
		a := v.Result.Anomalies[0]
		v.Class, v.Detail = a.Class, a.Call+": "+a.Detail
	case lim.MaxRSS > 0 && v.MaxRSS > lim.MaxRSS:
		v.Class, v.Detail = "memory", fmt.Sprintf("peak resident set %d MiB (limit %d MiB)", v.MaxRSS>>20, lim.MaxRSS>>20)
	}
	return v
}

// tailBuffer keeps the last max bytes written to it, and the lines that
// say why a process died (the Go runtime's first line, which a goroutine
// dump pushes out of any tail) and which read call was running.
type tailBuffer struct {
	b        []byte
	max      int
	partial  []byte
	reason   string // "panic: ...", "fatal error: ...", ...
	lastCall string
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.line(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 4096 {
		t.partial = t.partial[:0]
	}
	return len(p), nil
}

func (t *tailBuffer) line(l string) {
	switch {
	case strings.HasPrefix(l, "verified: ") || strings.HasPrefix(l, "lazy: "):
		t.lastCall = l
	case t.reason == "" && (strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") ||
		strings.HasPrefix(l, "unexpected fault address") || strings.HasPrefix(l, "runtime: out of memory")):
		t.reason = l
	}
}

func (t *tailBuffer) String() string {
	if len(t.b) > t.max {
		return string(t.b[len(t.b)-t.max:])
	}
	return string(t.b)
}

// Probes files (FILE.probes, read by the Go runner and the C driver): one
// line per key, "TABLE KEY", both in hex, in the order to Get them.

// WriteProbes writes probes to path.
func WriteProbes(path string, probes map[string][][]byte) error {
	var b strings.Builder
	names := make([]string, 0, len(probes))
	for n := range probes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, k := range probes[n] {
			fmt.Fprintf(&b, "%x %x\n", n, k)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// ReadProbes reads a probes file.
func ReadProbes(path string) (map[string][][]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	out := map[string][][]byte{}
	sc := bufio.NewScanner(io.LimitReader(fh, 16<<20))
	for sc.Scan() {
		n, k, ok := strings.Cut(sc.Text(), " ")
		name, err1 := hex.DecodeString(n)
		key, err2 := hex.DecodeString(k)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: bad line %q", path, sc.Text())
		}
		out[string(name)] = append(out[string(name)], key)
	}
	return out, sc.Err()
}
