package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
)

// Exit statuses.
const (
	exitOK      = 0 // every URL allowed, no verdict changed, no error finding
	exitVerdict = 1 // check: a URL is disallowed; diff: a verdict or pause changes; lint: an error finding; sitemaps: no URL read
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
  robotsguard check   [-robots FILE|-] [-agent NAME] [-dialect rfc9309|google|koster1996] [-acap USAGE | -usage CATEGORY [-tdmrep FILE] [-rsl FILE]] [-key FILE -signature-agent URL] [-json] [-urls FILE] [URL...]
  robotsguard lint    [-json] FILE|URL
  robotsguard fetch   [-agent NAME] [-key FILE -signature-agent URL] [-json] URL
  robotsguard diff    [-agent NAME] [-json] [-urls FILE] OLD NEW [URL...]
  robotsguard keygen  [-o FILE]
  robotsguard directory KEYFILE...
  robotsguard sitemaps [-agent NAME] [-json] [-limit N] URL|FILE...
  robotsguard version [-json]
  robotsguard help    [COMMAND]

Run "robotsguard help COMMAND" (or "robotsguard COMMAND -h") for what a
command does and its flags.
"robotsguard -version" is "robotsguard version".
Exit status: 0 all allowed / nothing to report, 1 a URL disallowed (check),
a verdict or pause changed (diff), an error found (lint) or no URL read
(sitemaps), 2 usage, 3 a file or robots.txt could not be read.
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
		"check":     cmdCheck,
		"lint":      cmdLint,
		"fetch":     cmdFetch,
		"diff":      cmdDiff,
		"keygen":    cmdKeygen,
		"directory": cmdDirectory,
		"sitemaps":  cmdSitemaps,
		"version":   cmdVersion,
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, synopsis)
		return exitOK
	case "-version", "--version":
		name = "version"
	case "help":
		// "help COMMAND" is "COMMAND -h".
		switch {
		case len(args) == 1 || args[1] == "help":
			fmt.Fprint(stdout, synopsis)
			return exitOK
		case len(args) > 2:
			fmt.Fprintf(stderr, "robotsguard help: help takes one COMMAND\n%s", synopsisOf("help"))
			return exitUsage
		}
		name, args = args[1], []string{args[1], "-h"}
		if _, ok := cmds[name]; !ok {
			fmt.Fprintf(stderr, "robotsguard help: unknown command %q\n%s", name, synopsis)
			return exitUsage
		}
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

// count writes n things: "1 agent", "2 agents", "0 errors".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// unprefixed is err's message without the "robotsguard: " it starts
// with, to follow a message of the command's own.
func unprefixed(err error) string {
	if err == nil {
		return "unknown error"
	}
	return strings.TrimPrefix(err.Error(), "robotsguard: ")
}

// flagAfterArgs rejects flags given after the arguments, which the flag
// package takes for arguments: "lint robots.txt -json".
func flagAfterArgs(args []string) error {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			return usagef("flag %q after the arguments: flags go before arguments", a)
		}
	}
	return nil
}

// synopsisOf returns the usage line of a command.
func synopsisOf(name string) string {
	for _, l := range strings.Split(synopsis, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "robotsguard "+name+" ") {
			return "usage: " + strings.Join(strings.Fields(l), " ") + "\n"
		}
	}
	return synopsis
}

// summaries say what each command does, in "robotsguard help COMMAND".
var summaries = map[string]string{
	"check": `Check decides URLs for an agent as a crawler using robotsguard's Transport
would: by the robots.txt of each URL's origin, fetched live as the Transport
fetches it, or by the file -robots names (then URLs may be paths). Each URL
gets its verdict, the deciding rule and its line, and the group followed.
Exit status 1 when a URL is disallowed.`,
	"lint": `Lint reads a robots.txt file, or the robots.txt of an origin as the
Transport fetches it, and lists what its owner should fix: each finding with
its line, severity (error, warning, info), code and a fix hint.
Exit status 1 when a finding is an error.`,
	"fetch": `Fetch shows what the Transport does with an origin's robots.txt: the status
and what it means, the redirects followed, how long the file is cached and
why, the validators, the pause kept between requests of -agent, every
agent's Crawl-delay and Request-rate, the sitemaps and the ACAP records.
Exit status 3 when the robots.txt is unreachable.`,
	"diff": `Diff compares two versions of a robots.txt (each a file, "-" for standard
input, or an http(s) URL whose origin's robots.txt is fetched) over URLs:
those of -urls and the arguments, or paths derived from both files' rules.
It lists, per agent, the URLs whose verdict changes and the pauses
(Crawl-delay, Request-rate) that change. Exit status 1 when something changes.`,
	"keygen": `Keygen makes an Ed25519 key to sign requests with as a Web Bot Auth crawler
(-key of check and fetch), and writes it as PKCS#8 PEM to -o FILE, which
it creates (an existing file is kept), or to standard output.`,
	"directory": `Directory prints the Web Bot Auth key directory of the keys (PEM files,
private or public): the JSON Web Key Set to serve, as
application/http-message-signatures-directory+json, at
/.well-known/http-message-signatures-directory of the -signature-agent
URL. To rotate keys, list the old and the new.`,
	"sitemaps": `Sitemaps lists the URLs, with their lastmod, of a site's sitemaps (for a
site's URL: those its robots.txt lists), of a sitemap (for its URL), or of
a sitemap file (an index's sitemaps are listed, not read). Sitemaps are
fetched as a robotsguard.Transport fetches any request of -agent: paced,
and refused when robots.txt disallows them. Errors go to standard error,
and the walk goes on. Exit status 1 when no URL could be read.`,
	"version": `Version prints the version of robotsguard (that of "go install …@VERSION",
or "(devel)" for a build from a checkout), the Go version and platform it
was built with, the VCS revision when the build recorded it, and the
User-Agent the commands send when no -agent names a crawler.`,
}

// newFlags returns a flag set for a command; parseFlags prints its usage.
func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr) // the flag package's error messages
	fs.Usage = func() {}   // parseFlags prints the usage where it belongs
	return fs
}

// parseFlags parses args into fs, mapping its errors to exit statuses:
// help asked for (-h) is printed on standard output, with what the
// command does, and the usage after a flag error on standard error.
func (e *env) parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, synopsisOf(fs.Name()))
		if s := summaries[fs.Name()]; s != "" {
			fmt.Fprintf(e.stdout, "\n%s\n", s)
		}
		if hasFlags(fs) {
			fmt.Fprint(e.stdout, "\nFlags (before the arguments):\n")
			printFlags(fs, e.stdout)
		}
		return err
	}
	fmt.Fprint(e.stderr, synopsisOf(fs.Name()))
	printFlags(fs, e.stderr)
	return errUsage
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// printFlags writes the flags of fs and their defaults to w.
func printFlags(fs *flag.FlagSet, w io.Writer) {
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}
