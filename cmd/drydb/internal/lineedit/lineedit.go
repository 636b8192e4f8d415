// Package lineedit is a minimal line editor for the drydb shell: raw-mode
// input with cursor movement, history and tab completion, built on termios
// from golang.org/x/sys/unix (already a module dependency) rather than a
// readline library.
package lineedit

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"
)

// ErrInterrupted is returned by ReadLine when the user presses Ctrl-C; the
// caller should discard the line and prompt again.
var ErrInterrupted = errors.New("interrupted")

// Completer returns the candidates for the word that ends at the cursor and
// the byte offset in line where that word starts.
type Completer func(line string) (start int, candidates []string)

// Editor reads lines from a terminal.
type Editor struct {
	in       *os.File
	r        *bufio.Reader
	out      io.Writer
	History  []string
	Complete Completer
	// MaxHistory bounds History; older entries are dropped.
	MaxHistory int
}

// New returns an editor reading keys from in (a terminal) and echoing to out.
func New(in *os.File, out io.Writer) *Editor {
	return &Editor{in: in, r: bufio.NewReader(in), out: out, MaxHistory: 1000}
}

// AddHistory appends a line to the history unless it is blank or repeats the
// previous entry.
func (e *Editor) AddHistory(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	if n := len(e.History); n > 0 && e.History[n-1] == line {
		return
	}
	e.History = append(e.History, line)
	if e.MaxHistory > 0 && len(e.History) > e.MaxHistory {
		e.History = e.History[len(e.History)-e.MaxHistory:]
	}
}
