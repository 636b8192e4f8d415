//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair with plain ioctls, so the shell's
// line editing is tested as a user would meet it, without a pty library.
func openPTY() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120})
	return m, s, nil
}

type term struct {
	t   *testing.T
	m   *os.File
	mu  sync.Mutex
	buf bytes.Buffer
}

func (tm *term) read() {
	b := make([]byte, 4096)
	for {
		n, err := tm.m.Read(b)
		tm.mu.Lock()
		tm.buf.Write(b[:n])
		tm.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// waitFor waits until the screen output since the last call contains s.
func (tm *term) waitFor(s string) string {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tm.mu.Lock()
		out := tm.buf.String()
		if i := strings.Index(out, s); i >= 0 {
			tm.buf.Next(i + len(s))
			tm.mu.Unlock()
			return out[:i+len(s)]
		}
		tm.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.t.Fatalf("terminal never showed %q; got:\n%q", s, tm.buf.String())
	return ""
}

func (tm *term) send(s string) {
	tm.t.Helper()
	if _, err := tm.m.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

func TestShellTerminal(t *testing.T) {
	dir, f := shop(t)
	m, s, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer m.Close()
	cmd := exec.Command(bin, f)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "DRYDB_HISTORY=", "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	tm := &term{t: t, m: m}
	go tm.read()
	defer cmd.Process.Kill()

	tm.waitFor("2 tables (orders, users)")
	tm.waitFor("drydb> ")
	// Tab completes the command, then the table name.
	tm.send("us\t")
	tm.waitFor("use ")
	tm.send("u\t")
	tm.waitFor("use users ")
	tm.send("\r")
	tm.waitFor("drydb:users> ")
	tm.send("cou\t\r")
	tm.waitFor("12\r\n")
	tm.waitFor("drydb:users> ")
	tm.send("get 3\r")
	tm.waitFor("Grace Hopper")
	tm.waitFor("drydb:users> ")
	// Up brings back "get 3"; Backspace and a new digit make it "get 5".
	tm.send("\x1b[A")
	tm.waitFor("get 3")
	tm.send("\x7f5\r")
	tm.waitFor("Barbara Liskov")
	tm.waitFor("drydb:users> ")
	// Ctrl-A goes to the start of the line; Left/Right arrows move too.
	tm.send("et 6\x01g\r")
	tm.waitFor("Donald Knuth")
	tm.send("get 1\x1b[D9\x1b[C0\r") // "get 910": not found
	tm.waitFor("not found: 910")
	// Two Tabs list the candidates when they share no longer prefix.
	tm.send("get --index \t\t")
	tm.waitFor("city  email")
	tm.send("\x15") // Ctrl-U clears the line
	tm.send("\x03") // Ctrl-C abandons it
	tm.waitFor("^C")
	tm.send("quit\r")
	waitExit(t, cmd, "quit")
	hist, err := os.ReadFile(filepath.Join(dir, ".drydb_history"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"use users\n", "get 3\n", "get 5\n", "get 6\n", "quit\n"} {
		if !strings.Contains(string(hist), want) {
			t.Fatalf("history lacks %q:\n%s", want, hist)
		}
	}

	// A second session reads the history back: Up shows the last command.
	m2, s2, err := openPTY()
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	cmd = exec.Command(bin, "shell", "-t", "users", f)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "DRYDB_HISTORY=")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s2, s2, s2
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	tm = &term{t: t, m: m2}
	go tm.read()
	defer cmd.Process.Kill()
	tm.waitFor("drydb:users> ")
	tm.send("\x1b[A\x1b[A\r") // the entry before "quit"
	tm.waitFor("not found: 910")
	// Ctrl-D only once the next prompt is up: sent while the command still
	// ran, the terminal was in cooked mode, where Ctrl-D is an end of file
	// that the line editor's raw-mode read never sees (a loaded CI machine
	// hung here until the test binary's 10-minute timeout)
	tm.waitFor("drydb:users> ")
	tm.send("\x04") // Ctrl-D on an empty line leaves
	waitExit(t, cmd, "Ctrl-D")
}

// waitExit waits up to 10 s for the shell to exit cleanly after key.
func waitExit(t *testing.T, cmd *exec.Cmd, key string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shell exited with %v after %s", err, key)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("shell did not exit on %s", key)
	}
}
