package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

// Exit statuses.
const (
	exitOK      = 0 // every URL allowed, no verdict changed, no error finding
	exitVerdict = 1 // check: a URL is disallowed; diff: a verdict changes; lint: an error finding
	exitUsage   = 2 // bad flags or arguments
	exitFailure = 3 // a file or robots.txt could not be read
)

// errUsage marks an error that is the caller's: it exits with exitUsage.
var errUsage = errors.New("usage")

// usageError is a usage mistake, printed with the command's usage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// failure is an operational failure: it exits with exitFailure.
type failure struct{ err error }

func (e *failure) Error() string { return e.err.Error() }
func (e *failure) Unwrap() error { return e.err }

func fail(format string, args ...any) error { return &failure{fmt.Errorf(format, args...)} }

const synopsis = `usage:
  robotsguard check   [-robots FILE|-] [-agent NAME] [-dialect rfc9309|google|koster1996] [-acap USAGE | -usage CATEGORY [-tdmrep FILE]] [-json] [-urls FILE] [URL...]
  robotsguard lint    [-json] FILE|URL
  robotsguard fetch   [-agent NAME] [-json] URL
  robotsguard diff    [-agent NAME] [-json] [-urls FILE] OLD NEW [URL...]

Run "robotsguard COMMAND -h" for a command's flags.
Exit status: 0 all allowed / nothing to report, 1 a URL disallowed (check),
a verdict changed (diff) or an error found (lint), 2 usage, 3 a file or
robots.txt could not be read.
`

// env is what a command reads and writes.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	color  bool // colour the human output
	tty    bool // stderr is a terminal: show progress
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr,
		color: colorWanted(stdout), tty: isTerminal(stderr)}
	if len(args) == 0 {
		fmt.Fprint(stderr, synopsis)
		return exitUsage
	}
	cmds := map[string]func(*env, []string) (int, error){
		"check": cmdCheck,
		"lint":  cmdLint,
		"fetch": cmdFetch,
		"diff":  cmdDiff,
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		fmt.Fprint(stdout, synopsis)
		return exitOK
	}
	cmd, ok := cmds[name]
	if !ok {
		fmt.Fprintf(stderr, "robotsguard: unknown command %q\n%s", name, synopsis)
		return exitUsage
	}
	code, err := cmd(e, args[1:])
	var ue *usageError
	var fe *failure
	switch {
	case err == nil:
		return code
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
		return exitUsage // the flag package printed it
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "robotsguard %s: %v\n", name, err)
		fmt.Fprint(stderr, synopsisOf(name))
		return exitUsage
	case errors.As(err, &fe):
		fmt.Fprintf(stderr, "robotsguard %s: %v\n", name, err)
		return exitFailure
	default:
		fmt.Fprintf(stderr, "robotsguard %s: %v\n", name, err)
		return exitFailure
	}
}

// synopsisOf returns the usage line of a command.
func synopsisOf(name string) string {
	for _, l := range strings.Split(synopsis, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "robotsguard "+name+" ") {
			return "usage: " + strings.TrimSpace(l) + "\n"
		}
	}
	return synopsis
}

// newFlags returns a flag set for a command that prints its usage to
// stderr and returns its errors.
func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprint(e.stderr, synopsisOf(name))
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs, mapping its errors to exit statuses.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}
