// Command drydb builds, queries, checks and explores drydb database files.
//
//	drydb build OUT.drydb [flags] INPUT...    build a file from CSV, TSV or JSON Lines
//	drydb get FILE KEY...                     look up keys
//	drydb shell FILE                          interactive session (also: drydb FILE)
//
// Run "drydb help" for every command, "drydb CMD -h" for one command's flags.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/drydb/drydb/engine"
)

// Exit codes: 0 success, 1 failure (including "not found" and a failed
// verify), 2 a usage error (bad flag, missing argument).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// usageError marks errors in how drydb was invoked, so they exit with 2 and
// point at the command's help.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// errSilent is returned by commands that have already reported what went
// wrong (a verify that printed its problems, a get of a missing key) and
// only need a non-zero exit.
var errSilent = errors.New("")

// command describes one subcommand. In the shell the same commands run
// against the already open file, so FILE is only parsed from the command
// line when needsFile is set and we are not in the shell.
type command struct {
	name      string
	args      string // synopsis after the command name
	summary   string
	needsFile bool
	// setup registers the command's flags on fs, storing into c.
	setup func(fs *flag.FlagSet, c *ctx)
	run   func(c *ctx) error
	// shellOnly commands are not offered on the command line.
	shellOnly bool
}

var commands []*command

func init() {
	commands = []*command{
		buildCommand,
		mergeCommand,
		convertCommand,
		shardCommand,
		{name: "get", args: "FILE KEY...", summary: "look up rows by key (or by index key with --index)", needsFile: true, setup: setupGet, run: runGet},
		{name: "scan", args: "FILE", summary: "list rows in key order, with offset and limit", needsFile: true, setup: setupScan, run: runScan},
		{name: "keys", args: "FILE", summary: "list keys only", needsFile: true, setup: setupScan, run: runScan},
		{name: "values", args: "FILE", summary: "list values only", needsFile: true, setup: setupScan, run: runScan},
		{name: "range", args: "FILE [LO [HI]]", summary: "list rows with LO <= key < HI (or --from/--after/--to/--before)", needsFile: true, setup: setupScan, run: runScan},
		{name: "prefix", args: "FILE PREFIX", summary: "list rows whose key starts with PREFIX", needsFile: true, setup: setupScan, run: runScan},
		{name: "count", args: "FILE [LO [HI]]", summary: "count rows, in a range or under a prefix", needsFile: true, setup: setupScan, run: runCount},
		{name: "tables", args: "FILE", summary: "list tables with rows, key encoding and indexes", needsFile: true, setup: setupCommon, run: runTables},
		{name: "info", args: "FILE", summary: "describe the file: format, page size, tables, indexes, metadata", needsFile: true, setup: setupCommon, run: runInfo},
		{name: "stat", args: "FILE", summary: "tree statistics: depth, pages, fill, key and value sizes", needsFile: true, setup: setupCommon, run: runStat},
		{name: "verify", args: "FILE", summary: "check every checksum, the tree structure and the indexes", needsFile: true, setup: setupCommon, run: runVerify},
		{name: "dump", args: "FILE", summary: "write every table (or -t TABLE) as JSON Lines", needsFile: true, setup: setupExport, run: runDump},
		{name: "export", args: "FILE", summary: "write one table as JSON Lines or CSV", needsFile: true, setup: setupExport, run: runExport},
		{name: "shell", args: "FILE", summary: "interactive session (also: drydb FILE)", needsFile: true, setup: func(*flag.FlagSet, *ctx) {}, run: nil},
		{name: "use", args: "TABLE", summary: "make TABLE the current table", shellOnly: true, setup: func(*flag.FlagSet, *ctx) {}, run: runUse},
		{name: "help", args: "[COMMAND]", summary: "show help", setup: func(*flag.FlagSet, *ctx) {}, run: nil},
		{name: "quit", args: "", summary: "leave the shell (also exit, Ctrl-D)", shellOnly: true, setup: func(*flag.FlagSet, *ctx) {}, run: nil},
	}
}

// shellListLimit is how many rows a listing in the shell prints when no
// --limit is given.
const shellListLimit = 20

// isListing reports whether cmd prints rows of a range (runScan).
func isListing(cmd *command) bool {
	switch cmd.name {
	case "scan", "keys", "values", "range", "prefix":
		return true
	}
	return false
}

// didYouMean suggests the command closest to a mistyped name (within two
// edits, or one it starts), as ` (did you mean "range"?)`, or "".
func didYouMean(name string, inShell bool) string {
	best, bestD := "", 3
	for _, c := range commands {
		if c.shellOnly && !inShell || !inShell && c.name == "use" || inShell && (c.name == "build" || c.name == "shell") {
			continue
		}
		d := editDistance(strings.ToLower(name), c.name)
		if strings.HasPrefix(c.name, strings.ToLower(name)) && len(name) >= 2 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c.name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c := lookupCommand(args[1]); c != nil && !c.shellOnly {
				printCommandUsage(stdout, c, false)
				return exitOK
			}
			fmt.Fprintf(stderr, "drydb: unknown command %q\n", args[1])
			return exitUsage
		}
		printUsage(stdout)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "drydb "+version)
		return exitOK
	}
	cmd := lookupCommand(name)
	if cmd == nil || cmd.shellOnly || cmd.name == "help" {
		// "drydb FILE" opens the shell, as sqlite3 FILE does.
		if st, err := os.Stat(name); err == nil && !st.IsDir() {
			return runShellMain(append([]string{name}, args[1:]...), stdin, stdout, stderr)
		}
		fmt.Fprintf(stderr, "drydb: unknown command %q%s (run \"drydb help\")\n", name, didYouMean(name, false))
		return exitUsage
	}
	if cmd.name == "build" || cmd.name == "merge" || cmd.name == "shard" {
		bw := bufio.NewWriter(stdout)
		c := &ctx{out: bw, errw: stderr, cmd: cmd}
		runner := runBuild
		if cmd.name == "merge" {
			runner = runMerge
		}
		if cmd.name == "shard" {
			runner = runShard
		}
		err := guarded(&c.path, func() error { return runner(c, args[1:]) })
		bw.Flush()
		return reportError(stderr, cmd, err, false)
	}
	if cmd.name == "shell" {
		return runShellMain(args[1:], stdin, stdout, stderr)
	}
	bw := bufio.NewWriterSize(stdout, 64<<10)
	c := &ctx{out: bw, errw: stderr, stdin: stdin, cmd: cmd}
	err := guarded(&c.path, func() error { return c.invoke(args[1:], nil) })
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if c.db != nil {
		c.db.Close()
	}
	return reportError(stderr, cmd, err, false)
}

// guarded runs a command's body: a panic in it (an engine bug, a file whose
// structure lies, or, with SetPanicOnFault, a memory fault on a file
// truncated or rewritten underneath) becomes an error naming *file, so the
// command ends with an error line and exit 1 like any failure instead of a
// panic trace. Every command runs through it: run for the command line,
// shell.exec for each command of the shell (which then goes on).
func guarded(file *string, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = crashError(*file, r)
		}
	}()
	return f()
}

// crashError describes a panic recovered by guarded.
func crashError(file string, r any) error {
	what := "internal error (is the file damaged?)"
	if _, ok := r.(interface{ Addr() uintptr }); ok { // a fault SetPanicOnFault turned into a panic
		what = "memory fault reading the file (was it truncated or changed while open?)"
	}
	if file == "" {
		return fmt.Errorf("%s: %v", what, r)
	}
	return fmt.Errorf("%s: %s: %v", file, what, r)
}

// reportError prints err the way every command does and returns the exit
// code for it.
func reportError(stderr io.Writer, cmd *command, err error, inShell bool) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err == errSilent {
		return exitFail
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "drydb: %s\n", ue.msg)
		if cmd != nil {
			if inShell {
				fmt.Fprintf(stderr, "usage: %s %s (\"help %s\" for more)\n", cmd.name, shellArgs(cmd), cmd.name)
			} else {
				fmt.Fprintf(stderr, "usage: drydb %s %s (\"drydb %s -h\" for more)\n", cmd.name, cmd.args, cmd.name)
			}
		}
		return exitUsage
	}
	fmt.Fprintf(stderr, "drydb: %s\n", strings.TrimPrefix(err.Error(), "drydb: "))
	return exitFail
}

const version = "0.1.0"

func printUsage(w io.Writer) {
	fmt.Fprint(w, `drydb: build and query read-only drydb database files

usage: drydb COMMAND [flags] [args]
       drydb FILE              (interactive shell)

commands:
`)
	for _, c := range commands {
		if c.shellOnly {
			continue
		}
		fmt.Fprintf(w, "  %-8s %-22s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprint(w, `
Flags may come before or after arguments; put "--" before a key that starts
with "-" other than a negative number. Most query commands take -t TABLE (not
needed when the file has one table) and --json for output meant for scripts.
Run "drydb COMMAND -h" for a command's flags.

exit status: 0 ok, 1 failure or key not found or verify found problems,
2 usage error.
`)
}

func printCommandUsage(w io.Writer, cmd *command, inShell bool) {
	if inShell {
		fmt.Fprintf(w, "usage: %s %s\n\n%s\n", cmd.name, shellArgs(cmd), cmd.summary)
	} else {
		fmt.Fprintf(w, "usage: drydb %s %s\n\n%s\n", cmd.name, cmd.args, cmd.summary)
	}
	if extra := commandHelp[cmd.name]; extra != "" {
		fmt.Fprint(w, "\n"+extra)
	}
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	cmd.setup(fs, &ctx{})
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		printFlags(w, fs)
	}
}

// printFlags lists flags as the prose writes them, --name for long names
// and -x for one letter (the flag package's PrintDefaults writes -name).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		arg, usage := flag.UnquoteUsage(f)
		line := "  " + dash + f.Name
		if arg != "" {
			line += " " + arg
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && !isBoolFlag(f) {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}

// shellArgs is the synopsis without the FILE the shell already has open.
func shellArgs(cmd *command) string {
	if cmd.needsFile {
		return strings.TrimSpace(strings.TrimPrefix(cmd.args, "FILE"))
	}
	return cmd.args
}

// ctx carries one command invocation: the open file, the parsed flags and
// where output goes. The shell keeps one DB and current table across many.
type ctx struct {
	cmd    *command
	db     *engine.DB
	path   string
	out    *bufio.Writer
	errw   io.Writer
	stdin  *os.File
	args   []string // positional arguments after FILE
	shell  *shell   // nil outside the shell
	intr   *atomic.Bool
	o      opts
	fs     *flag.FlagSet
	verify bool // open with full verification
}

// opts holds every flag of the query commands; each command registers the
// ones it uses.
type opts struct {
	table                                          string
	json                                           bool
	values                                         string
	index                                          string
	offset                                         uint64
	limit                                          int64
	reverse                                        bool
	from                                           string
	after                                          string
	to                                             string
	before                                         string
	prefix                                         string
	hasFrom, hasAfter, hasTo, hasBefore, hasPrefix bool
	hasLimit, implicitLimit                        bool
	format                                         string
	output                                         string
	keysOnly                                       bool
	conv                                           convertOpts // convert's flags
}

// invoke parses args (FILE first unless in the shell), opens the file and
// runs the command.
func (c *ctx) invoke(args []string, sh *shell) error {
	fs := flag.NewFlagSet(c.cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.fs = fs
	c.cmd.setup(fs, c)
	pos, err := parseFlags(fs, args, nil)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandUsage(c.out, c.cmd, sh != nil)
			return flag.ErrHelp
		}
		return usagef("%v", err)
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "from":
			c.o.hasFrom = true
		case "after":
			c.o.hasAfter = true
		case "to":
			c.o.hasTo = true
		case "before":
			c.o.hasBefore = true
		case "prefix":
			c.o.hasPrefix = true
		case "limit", "n":
			c.o.hasLimit = true
		}
	})
	if sh != nil && !c.o.hasLimit && c.cmd.run != nil && isListing(c.cmd) {
		// A shell user types "range 1" to look: a page, not every row.
		c.o.limit, c.o.implicitLimit = shellListLimit, true
	}
	if c.cmd.needsFile && sh == nil {
		if len(pos) == 0 {
			return usagef("missing FILE")
		}
		c.path = pos[0]
		pos = pos[1:]
		db, err := openDB(c.path, c.verify)
		if err != nil {
			return err
		}
		c.db = db
	}
	c.args = pos
	return c.cmd.run(c)
}

func openDB(path string, verify bool) (*engine.DB, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	} else if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	db, err := engine.Open(path, &engine.Options{Verify: verify})
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "drydb: "))
	}
	return db, nil
}

// parseFlags parses flags and positional arguments in any order, which the
// flag package alone does not do. A negative number ("-5") is taken as an
// argument, since keys can be negative integers; everything after "--" is an
// argument. onArg, if set, is called for each positional argument as it is
// met, so build can apply the flags seen so far to the input that follows.
func parseFlags(fs *flag.FlagSet, args []string, onArg func(string) error) ([]string, error) {
	var pos []string
	add := func(a string) error {
		pos = append(pos, a)
		if onArg != nil {
			return onArg(a)
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for _, r := range args[i+1:] {
				if err := add(r); err != nil {
					return nil, err
				}
			}
			break
		}
		if len(a) < 2 || a[0] != '-' || isNumber(a) {
			if err := add(a); err != nil {
				return nil, err
			}
			continue
		}
		name := strings.TrimLeft(a, "-")
		hasValue := strings.Contains(name, "=")
		if hasValue {
			name = name[:strings.Index(name, "=")]
		}
		one := []string{a}
		if f := fs.Lookup(name); f != nil && !hasValue && !isBoolFlag(f) {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("flag needs an argument: %s", a)
			}
			one = append(one, args[i+1])
			i++
		}
		if err := fs.Parse(one); err != nil {
			return nil, err
		}
	}
	return pos, nil
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// tableName returns the table the command works on: -t, else the shell's
// current table, else the only table of the file.
func (c *ctx) tableName() (string, error) {
	if c.o.table != "" {
		return c.o.table, nil
	}
	if c.shell != nil && c.shell.table != "" {
		return c.shell.table, nil
	}
	names := c.db.Tables()
	switch len(names) {
	case 0:
		return "", errors.New("the file has no tables")
	case 1:
		return names[0], nil
	}
	sort.Strings(names)
	if c.shell != nil {
		return "", usagef("the file has %d tables (%s): pick one with \"use TABLE\" or -t TABLE", len(names), strings.Join(names, ", "))
	}
	return "", usagef("the file has %d tables (%s): pick one with -t TABLE", len(names), strings.Join(names, ", "))
}

func (c *ctx) table() (*engine.Table, error) {
	name, err := c.tableName()
	if err != nil {
		return nil, err
	}
	t, err := c.db.Table(name)
	if err != nil {
		if errors.Is(err, engine.ErrNoTable) {
			names := c.db.Tables()
			sort.Strings(names)
			return nil, fmt.Errorf("no table %q (tables: %s)", name, strings.Join(names, ", "))
		}
		return nil, err
	}
	return t, nil
}

// stopped reports whether the user pressed Ctrl-C in the shell, so a long
// listing ends and the prompt comes back.
func (c *ctx) stopped() bool { return c.intr != nil && c.intr.Load() }

func setupCommon(fs *flag.FlagSet, c *ctx) {
	fs.StringVar(&c.o.table, "t", "", "table `NAME` (default: the only table, or the shell's current one)")
	fs.StringVar(&c.o.table, "table", "", "same as -t")
	fs.BoolVar(&c.o.json, "json", false, "output JSON for scripts")
	if c.cmd != nil && c.cmd.name == "verify" {
		c.verify = true
	}
}
