//go:build linux || darwin || freebsd || netbsd || openbsd

package lineedit

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	return err == nil
}

// Width returns the terminal width of fd, or 80 when it cannot be told.
func Width(fd int) int {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 80
	}
	return int(ws.Col)
}

func makeRaw(fd int) (*unix.Termios, error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	// Output post-processing stays on so "\n" written by the caller while
	// raw still returns the carriage.
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &t); err != nil {
		return nil, err
	}
	return old, nil
}

type state struct {
	e      *Editor
	prompt string
	buf    []rune
	pos    int
	hist   int    // index into history being shown; len(History) = the new line
	saved  []rune // the new line, kept while browsing history
	tabs   int    // consecutive tab presses, to list candidates on the second
}

// ReadLine shows prompt and returns the line the user enters, without the
// newline. It returns io.EOF on Ctrl-D at an empty line and ErrInterrupted on
// Ctrl-C.
func (e *Editor) ReadLine(prompt string) (string, error) {
	fd := int(e.in.Fd())
	old, err := makeRaw(fd)
	if err != nil {
		return "", err
	}
	defer unix.IoctlSetTermios(fd, ioctlSetTermios, old)
	s := &state{e: e, prompt: prompt, hist: len(e.History)}
	s.refresh()
	for {
		r, _, err := e.r.ReadRune()
		if err != nil {
			return "", err
		}
		if r != '\t' {
			s.tabs = 0
		}
		switch r {
		case '\r', '\n':
			fmt.Fprint(e.out, "\r\n")
			return string(s.buf), nil
		case 3: // Ctrl-C
			fmt.Fprint(e.out, "^C\r\n")
			return "", ErrInterrupted
		case 4: // Ctrl-D: end of input on an empty line, else delete
			if len(s.buf) == 0 {
				fmt.Fprint(e.out, "\r\n")
				return "", io.EOF
			}
			s.del()
		case 127, 8: // Backspace
			if s.pos > 0 {
				s.pos--
				s.del()
			}
		case 1: // Ctrl-A
			s.pos = 0
		case 5: // Ctrl-E
			s.pos = len(s.buf)
		case 2: // Ctrl-B
			if s.pos > 0 {
				s.pos--
			}
		case 6: // Ctrl-F
			if s.pos < len(s.buf) {
				s.pos++
			}
		case 11: // Ctrl-K
			s.buf = s.buf[:s.pos]
		case 21: // Ctrl-U
			s.buf = append([]rune(nil), s.buf[s.pos:]...)
			s.pos = 0
		case 23: // Ctrl-W
			s.deleteWordBack()
		case 12: // Ctrl-L
			fmt.Fprint(e.out, "\x1b[H\x1b[2J")
		case 16: // Ctrl-P
			s.history(-1)
		case 14: // Ctrl-N
			s.history(1)
		case '\t':
			s.tabs++
			s.complete()
		case 27:
			s.escape()
		default:
			if unicode.IsPrint(r) {
				s.buf = append(s.buf, 0)
				copy(s.buf[s.pos+1:], s.buf[s.pos:])
				s.buf[s.pos] = r
				s.pos++
			}
		}
		s.refresh()
	}
}

func (s *state) del() {
	if s.pos < len(s.buf) {
		s.buf = append(s.buf[:s.pos], s.buf[s.pos+1:]...)
	}
}

func (s *state) deleteWordBack() {
	i := s.pos
	for i > 0 && s.buf[i-1] == ' ' {
		i--
	}
	for i > 0 && s.buf[i-1] != ' ' {
		i--
	}
	s.buf = append(s.buf[:i], s.buf[s.pos:]...)
	s.pos = i
}

// escape handles the ANSI sequences terminals send for arrow, Home, End and
// Delete keys, in both the CSI ("ESC [") and SS3 ("ESC O") forms.
func (s *state) escape() {
	r := s.e.r
	b, err := r.ReadByte()
	if err != nil {
		return
	}
	switch b {
	case 'b':
		s.wordLeft()
		return
	case 'f':
		s.wordRight()
		return
	case '[', 'O':
	default:
		return
	}
	var num []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			return
		}
		if c >= '0' && c <= '9' || c == ';' {
			num = append(num, c)
			continue
		}
		switch c {
		case 'A':
			s.history(-1)
		case 'B':
			s.history(1)
		case 'C':
			if strings.HasSuffix(string(num), ";5") {
				s.wordRight()
			} else if s.pos < len(s.buf) {
				s.pos++
			}
		case 'D':
			if strings.HasSuffix(string(num), ";5") {
				s.wordLeft()
			} else if s.pos > 0 {
				s.pos--
			}
		case 'H':
			s.pos = 0
		case 'F':
			s.pos = len(s.buf)
		case '~':
			switch string(num) {
			case "1", "7":
				s.pos = 0
			case "4", "8":
				s.pos = len(s.buf)
			case "3":
				s.del()
			}
		}
		return
	}
}

func (s *state) wordLeft() {
	for s.pos > 0 && s.buf[s.pos-1] == ' ' {
		s.pos--
	}
	for s.pos > 0 && s.buf[s.pos-1] != ' ' {
		s.pos--
	}
}

func (s *state) wordRight() {
	for s.pos < len(s.buf) && s.buf[s.pos] == ' ' {
		s.pos++
	}
	for s.pos < len(s.buf) && s.buf[s.pos] != ' ' {
		s.pos++
	}
}

func (s *state) history(dir int) {
	h := s.e.History
	n := s.hist + dir
	if n < 0 || n > len(h) {
		return
	}
	if s.hist == len(h) {
		s.saved = append([]rune(nil), s.buf...)
	}
	s.hist = n
	if n == len(h) {
		s.buf = append([]rune(nil), s.saved...)
	} else {
		s.buf = []rune(h[n])
	}
	s.pos = len(s.buf)
}

// complete replaces the word before the cursor with the only candidate, or
// with the candidates' common prefix; a second Tab lists them all.
func (s *state) complete() {
	if s.e.Complete == nil {
		return
	}
	before := string(s.buf[:s.pos])
	start, cands := s.e.Complete(before)
	if len(cands) == 0 || start < 0 || start > len(before) {
		return
	}
	word := before[start:]
	repl := cands[0]
	if len(cands) == 1 {
		repl += " "
	} else {
		for _, c := range cands[1:] {
			repl = commonPrefix(repl, c)
		}
	}
	if len(repl) > len(word) {
		s.insertAt(start, repl)
		return
	}
	if len(cands) > 1 && s.tabs >= 2 {
		fmt.Fprint(s.e.out, "\r\n"+strings.Join(cands, "  ")+"\r\n")
	}
}

func (s *state) insertAt(start int, repl string) {
	before := []rune(string(s.buf[:s.pos])[:start])
	after := s.buf[s.pos:]
	nb := append(append(before, []rune(repl)...), after...)
	s.pos = len(before) + len([]rune(repl))
	s.buf = nb
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// refresh redraws the prompt and line and puts the cursor in place.
func (s *state) refresh() {
	var b strings.Builder
	b.WriteString("\r")
	b.WriteString(s.prompt)
	b.WriteString(string(s.buf))
	b.WriteString("\x1b[K")
	if back := len(s.buf) - s.pos; back > 0 {
		fmt.Fprintf(&b, "\x1b[%dD", back)
	}
	io.WriteString(s.e.out, b.String())
}
