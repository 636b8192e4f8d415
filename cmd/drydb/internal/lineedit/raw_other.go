//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package lineedit

import (
	"io"
	"strings"
)

// Without termios support the shell reads plain lines: IsTerminal says no,
// so the editor is never put in raw mode.

// IsTerminal reports whether fd is a terminal; always false here.
func IsTerminal(fd int) bool { return false }

// Width returns 80: the width cannot be asked for here.
func Width(fd int) int { return 80 }

// ReadLine reads a plain line, without editing.
func (e *Editor) ReadLine(prompt string) (string, error) {
	io.WriteString(e.out, prompt)
	line, err := e.r.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
