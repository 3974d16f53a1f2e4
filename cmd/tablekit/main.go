package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/tablekit/tablekit/internal/wire"
)

// usageError is a mistake on the command line; nothing was sent.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Unwrap() error { return errUsage }

// usageCause is a usageError found by another error, which errors.Is and
// As still reach (a malformed connection string's tablekit.ErrInvalid).
type usageCause struct {
	msg string
	err error
}

func (e *usageCause) Error() string   { return e.msg }
func (e *usageCause) Unwrap() []error { return []error{errUsage, e.err} }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// badTableName is a table name the service would refuse: the rule says
// "table name" itself, so the message names the name once, quoted.
func badTableName(name string, v *wire.Violation) error { return usagef("%q: %s", name, v) }

// env is what a command may touch of the outside world, so that tests can
// run commands in process as well as through the binary.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	tty            bool // stderr is a terminal: draw a live progress display
}

// command is one subcommand; example is shown by --help.
type command struct {
	name, args, summary, example string
	run                          func(ctx context.Context, e *env, args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, tty: term.IsTerminal(int(os.Stderr.Fd()))}
	stopProfile := startProfile(e)
	code := run(ctx, e, os.Args[1:])
	stopProfile()
	os.Exit(code)
}

// run dispatches to a subcommand and turns its error into an exit status.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		mainUsage(e.stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "tablekit: unknown command %q\n\n", args[0])
		mainUsage(e.stderr)
		return exitUsage
	}
	err := c.run(ctx, e, args[1:])
	code, show := exitStatus(ctx, err)
	switch {
	case !show:
	case code == exitUsage:
		fmt.Fprintf(e.stderr, "tablekit %s: %s\nRun 'tablekit %s --help' for usage.\n", c.name, message(err), c.name)
	case code == exitInterrupted:
		fmt.Fprintf(e.stderr, "tablekit %s: interrupted: %s\n", c.name, message(err))
	default:
		fmt.Fprintf(e.stderr, "tablekit %s: %s\n", c.name, message(err))
	}
	return code
}

// libPrefix begins the library's own errors ("tablekit: table not found"):
// after the command's "tablekit NAME: " it would say tablekit twice.
var libPrefix = regexp.MustCompile(`(^|[\s(:;])tablekit: `)

// message is err as the command prints it: the library's prefix left out
// and every byte printable, so that a file's binary content or a value's
// control characters cannot garble the terminal.
func message(err error) string {
	return printable(libPrefix.ReplaceAllString(err.Error(), "$1"))
}

// printable escapes, as Go's %q does, the control characters (newlines
// and tabs kept) and the bytes that are not UTF-8 in s.
func printable(s string) string {
	bad := func(r rune) bool { return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || r == utf8.RuneError }
	if !strings.ContainsFunc(s, bad) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, n := utf8.DecodeRuneInString(s[i:])
		w = n
		if bad(r) {
			q := strconv.QuoteToASCII(s[i : i+n])
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteString(s[i : i+n])
	}
	return b.String()
}

func mainUsage(w io.Writer) {
	fmt.Fprintln(w, "tablekit works with Azure Table Storage from the command line.")
	fmt.Fprintln(w, "\nUsage: tablekit COMMAND [flags] [args]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nConnection: --connection-string or TABLEKIT_CONNECTION_STRING, or --account-url with")
	fmt.Fprintln(w, "--sas (or a SAS in the URL) or with Entra ID (az login). Run 'tablekit COMMAND --help'.")
	fmt.Fprintln(w, "\nExit status: 0 done, 1 failed, 2 bad command line or input (nothing sent), 3 not found,")
	fmt.Fprintln(w, "4 precondition failed (--if-match), 5 outcome unknown (a write's reply was lost),")
	fmt.Fprintln(w, "6 verify found differences, 7 already complete (--checkpoint; --restart runs it again),")
	fmt.Fprintln(w, "130 interrupted.")
}

// newFlags makes a command's flag set; its usage shows the arguments,
// the summary, every flag and the example.
func newFlags(e *env, c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: tablekit %s %s\n\n%s\n\nFlags:\n", c.name, c.args, c.summary)
		fs.PrintDefaults()
		fmt.Fprintf(w, "\nExample:\n%s\n", indent(c.example))
	}
	return fs
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// parse parses flags placed before and after the positional arguments
// (tablekit drop mytable --yes reads as well as --yes mytable), and checks
// the number of positional arguments.
func parse(fs *flag.FlagSet, args []string, positional int) ([]string, error) {
	return parseBetween(fs, args, positional, positional)
}

// parseBetween is parse for a command that takes from min to max
// positional arguments.
func parseBetween(fs *flag.FlagSet, args []string, min, max int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	switch {
	case min == max && len(pos) != min:
		return nil, usagef("want %d argument(s), got %d: %q", min, len(pos), pos)
	case len(pos) < min || len(pos) > max:
		return nil, usagef("want %d to %d arguments, got %d: %q", min, max, len(pos), pos)
	}
	return pos, nil
}
