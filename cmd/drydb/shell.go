package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/drydb/drydb/cmd/drydb/internal/lineedit"
	"github.com/drydb/drydb/engine"
)

// shell is an interactive session on one open file: the query commands
// without the FILE argument, plus use, help and quit.
type shell struct {
	db    *engine.DB
	path  string
	table string
	out   io.Writer
	errw  io.Writer
	intr  atomic.Bool
	ed    *lineedit.Editor
	hist  *os.File
}

func runShellMain(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	cmd := lookupCommand("shell")
	fs := flag.NewFlagSet("shell", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var table string
	fs.StringVar(&table, "t", "", "start with `TABLE` as the current table")
	fs.StringVar(&table, "table", "", "same as -t")
	pos, err := parseFlags(fs, args, nil)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, "usage: drydb shell [-t TABLE] FILE   (or: drydb FILE)\n\n"+
			"An interactive session on FILE: every query command without the FILE\n"+
			"argument, plus use TABLE, help and quit. With a terminal: line editing,\n"+
			"history (~/.drydb_history) and Tab completion. With piped input the\n"+
			"commands are read one per line and the exit status is 1 if any failed.\n")
		return exitOK
	}
	if err == nil && len(pos) != 1 {
		err = usagef("shell takes one FILE")
	}
	if err != nil {
		var ue *usageError
		if !errors.As(err, &ue) {
			err = usagef("%v", err)
		}
		return reportError(stderr, cmd, err, false)
	}
	var db *engine.DB
	err = guarded(&pos[0], func() (err error) {
		db, err = openDB(pos[0], false)
		return err
	})
	if err != nil {
		return reportError(stderr, cmd, err, false)
	}
	defer db.Close()
	sh := &shell{db: db, path: pos[0], out: stdout, errw: stderr}
	if table != "" {
		if _, err := db.Table(table); err != nil {
			return reportError(stderr, cmd, fmt.Errorf("no table %q", table), false)
		} else {
			sh.table = table
		}
	} else if names := db.Tables(); len(names) == 1 {
		sh.table = names[0]
	}
	interactive := lineedit.IsTerminal(int(stdin.Fd())) && isTerminalWriter(stdout)
	if interactive {
		return sh.interactive(stdin)
	}
	return sh.piped(stdin)
}

func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && lineedit.IsTerminal(int(f.Fd()))
}

// piped runs commands read from a pipe or file, one per line, with no
// prompt; the exit status is 1 when any command failed, so scripts notice.
func (sh *shell) piped(in io.Reader) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	status := exitOK
	for sc.Scan() {
		quit, code := sh.exec(sc.Text())
		if code != exitOK {
			status = exitFail
		}
		if quit {
			break
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(sh.errw, "drydb: reading input: %v\n", err)
		return exitFail
	}
	return status
}

func historyPath() string {
	if p := os.Getenv("DRYDB_HISTORY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".drydb_history")
}

func (sh *shell) interactive(stdin *os.File) int {
	sh.ed = lineedit.New(stdin, sh.out)
	sh.ed.Complete = sh.complete
	if hp := historyPath(); hp != "" {
		if b, err := os.ReadFile(hp); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				sh.ed.AddHistory(l)
			}
		}
		if f, err := os.OpenFile(hp, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			sh.hist = f
			defer f.Close()
		}
	}
	// Ctrl-C while a command runs stops its listing rather than the shell;
	// at the prompt the terminal is raw and the editor sees it as a key.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			sh.intr.Store(true)
		}
	}()
	names := sh.db.Tables()
	sort.Strings(names)
	fmt.Fprintf(sh.out, "drydb %s: %s, %d tables (%s). Type \"help\" for commands, \"quit\" to leave.\n",
		version, sh.path, len(names), strings.Join(names, ", "))
	for {
		prompt := "drydb> "
		if sh.table != "" {
			prompt = "drydb:" + sh.table + "> "
		}
		line, err := sh.ed.ReadLine(prompt)
		if err == lineedit.ErrInterrupted {
			continue
		}
		if err != nil {
			if err != io.EOF {
				fmt.Fprintf(sh.errw, "drydb: %v\n", err)
				return exitFail
			}
			return exitOK
		}
		if strings.TrimSpace(line) != "" {
			// Completion leaves a trailing space; history keeps the command.
			line = strings.TrimRight(line, " \t")
			before := len(sh.ed.History)
			sh.ed.AddHistory(line)
			if sh.hist != nil && len(sh.ed.History) > before {
				fmt.Fprintln(sh.hist, line)
			}
		}
		sh.intr.Store(false)
		if quit, _ := sh.exec(line); quit {
			return exitOK
		}
	}
}

// exec runs one shell line and reports whether the shell should end and the
// command's exit code.
func (sh *shell) exec(line string) (bool, int) {
	args, err := splitWords(line)
	if err != nil {
		fmt.Fprintf(sh.errw, "drydb: %v\n", err)
		return false, exitUsage
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "#") {
		return false, exitOK
	}
	name := strings.ToLower(args[0])
	switch name {
	case "quit", "exit", `\q`, ".quit", ".exit", "q":
		return true, exitOK
	case "help", "?", ".help", `\h`:
		sh.help(args[1:])
		return false, exitOK
	case "build", "shell":
		fmt.Fprintf(sh.errw, "drydb: %s is not available inside the shell; run \"drydb %s\" from your shell\n", name, name)
		return false, exitUsage
	case ".tables", `\dt`:
		name = "tables"
	}
	cmd := lookupCommand(name)
	if cmd == nil {
		fmt.Fprintf(sh.errw, "drydb: unknown command %q%s (type \"help\")\n", args[0], didYouMean(args[0], true))
		return false, exitUsage
	}
	bw := bufio.NewWriterSize(sh.out, 64<<10)
	c := &ctx{cmd: cmd, db: sh.db, path: sh.path, out: bw, errw: sh.errw, shell: sh, intr: &sh.intr}
	err = guarded(&c.path, func() error { return c.invoke(args[1:], sh) })
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if sh.intr.Load() {
		fmt.Fprintln(sh.errw, "(interrupted)")
	}
	return false, reportError(sh.errw, cmd, err, true)
}

func (sh *shell) help(args []string) {
	if len(args) > 0 {
		if cmd := lookupCommand(args[0]); cmd != nil && cmd.name != "build" && cmd.name != "shell" {
			printCommandUsage(sh.out, cmd, true)
			return
		}
		fmt.Fprintf(sh.errw, "drydb: no command %q\n", args[0])
		return
	}
	fmt.Fprintln(sh.out, "commands:")
	for _, c := range commands {
		if c.name == "build" || c.name == "shell" {
			continue
		}
		fmt.Fprintf(sh.out, "  %-8s %-16s %s\n", c.name, shellArgs(c), c.summary)
	}
	fmt.Fprint(sh.out, "\n\"help COMMAND\" shows a command's flags. Quote arguments with spaces: get \"a b\".\n"+
		"Keys: Tab completes commands, tables and flags; Up/Down browse history; Ctrl-C stops a listing.\n")
}

// splitWords splits a shell line into words. A word that starts with a quote
// runs to the matching quote (double quotes honour \" and \\); quotes inside
// a word are kept, so a composite key (1,"a b") can be typed as it prints.
func splitWords(line string) ([]string, error) {
	var words []string
	rs := []rune(line)
	for i := 0; i < len(rs); {
		for i < len(rs) && (rs[i] == ' ' || rs[i] == '\t') {
			i++
		}
		if i >= len(rs) {
			break
		}
		var w strings.Builder
		if q := rs[i]; q == '"' || q == '\'' {
			i++
			closed := false
			for i < len(rs) {
				c := rs[i]
				if c == q {
					closed = true
					i++
					break
				}
				if q == '"' && c == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\') {
					w.WriteRune(rs[i+1])
					i += 2
					continue
				}
				w.WriteRune(c)
				i++
			}
			if !closed {
				return nil, fmt.Errorf("unterminated %c quote", q)
			}
			words = append(words, w.String())
			continue
		}
		var inq rune
		for i < len(rs) {
			c := rs[i]
			if inq == 0 && (c == ' ' || c == '\t') {
				break
			}
			if inq == 0 && (c == '"' || c == '\'') {
				inq = c
			} else if inq != 0 && c == '\\' && i+1 < len(rs) {
				w.WriteRune(c)
				i++
				c = rs[i]
			} else if c == inq {
				inq = 0
			}
			w.WriteRune(c)
			i++
		}
		words = append(words, w.String())
	}
	return words, nil
}

// complete offers command names for the first word; table names after use
// and -t; index names after -i/--index; a command's flags after "-".
func (sh *shell) complete(line string) (int, []string) {
	start := strings.LastIndexAny(line, " \t") + 1
	word := line[start:]
	fields := strings.Fields(line[:start])
	var cands []string
	switch {
	case len(fields) == 0:
		for _, c := range commands {
			if c.name != "build" && c.name != "shell" {
				cands = append(cands, c.name)
			}
		}
	case fields[0] == "use" || fields[len(fields)-1] == "-t" || fields[len(fields)-1] == "--table" || fields[len(fields)-1] == "-table":
		cands = sh.db.Tables()
	case fields[len(fields)-1] == "-i" || fields[len(fields)-1] == "--index" || fields[len(fields)-1] == "-index":
		tn := sh.table
		for i := 0; i+1 < len(fields); i++ {
			if fields[i] == "-t" || fields[i] == "--table" || fields[i] == "-table" {
				tn = fields[i+1]
			}
		}
		if tables := sh.db.Tables(); tn == "" && len(tables) == 1 {
			tn = tables[0] // the table commands use when none is named
		}
		if t, err := sh.db.Table(tn); err == nil {
			cands = t.Indexes()
		}
	case fields[0] == "help":
		for _, c := range commands {
			cands = append(cands, c.name)
		}
	case strings.HasPrefix(word, "-"):
		if cmd := lookupCommand(fields[0]); cmd != nil {
			fs := flag.NewFlagSet("", flag.ContinueOnError)
			cmd.setup(fs, &ctx{cmd: cmd})
			fs.VisitAll(func(f *flag.Flag) {
				if len(f.Name) > 1 {
					cands = append(cands, "--"+f.Name)
				}
			})
		}
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, word) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return start, out
}
