// Command coderag indexes a company's services — code, deploy files, docs,
// runbooks and conversations — into one SQLite file and searches it.
//
// Usage:
//
//	coderag crawl --repo-path ./platform --repo-path ./web
//	coderag query "who calls the cart service"
//	coderag stats
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"golang.org/x/term"

	"coderag/core"
)

// version is set by the Makefile (-ldflags -X main.version=...).
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := startProfile(os.Getenv("CODERAG_CPUPROFILE"))
	code := run(ctx, os.Args[1:], newIO())
	stopProfile()
	stop()
	os.Exit(code)
}

// startProfile writes a CPU profile of the command to path (the
// CODERAG_CPUPROFILE environment variable; read it with go tool pprof) and
// returns the function that ends it. An empty path profiles nothing.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "coderag: CODERAG_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// run executes one command line and returns the process exit code:
// 0 success, 1 failure, 2 usage error, 130 interrupted.
func run(ctx context.Context, args []string, io *ioStreams) int {
	cmd := newRootCmd(io)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(io.err, "coderag: interrupted")
		return 130
	case errors.As(err, new(*usageError)), strings.HasPrefix(err.Error(), "unknown command"):
		path := "coderag"
		if sub, _, ferr := cmd.Find(args); ferr == nil && sub != nil {
			path = sub.CommandPath()
		}
		fmt.Fprintf(io.err, "coderag: %v\nRun '%s --help' for usage.\n", err, path)
		return 2
	case errors.Is(err, errSilent):
		return 1
	case errors.Is(err, core.ErrBadQuery):
		fmt.Fprintf(io.err, "coderag: %v\n", err)
		return 2
	}
	fmt.Fprintf(io.err, "coderag: %v\n", err)
	return 1
}

// errSilent is returned by commands that already reported their failure.
var errSilent = errors.New("failed")

// usageError is a command-line mistake.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// ioStreams are the command's input and outputs, and what they are.
type ioStreams struct {
	in         io.Reader // standard input; nil is the process's
	out, err   io.Writer
	outTTY     bool
	errTTY     bool
	color      bool // colour on stdout
	colorErr   bool // colour on stderr
	termWidth  func() int
	isTerminal bool
}

func newIO() *ioStreams {
	outTTY := term.IsTerminal(int(os.Stdout.Fd()))
	errTTY := term.IsTerminal(int(os.Stderr.Fd()))
	noColor := os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb"
	return &ioStreams{
		out: os.Stdout, err: os.Stderr,
		outTTY: outTTY, errTTY: errTTY,
		color: outTTY && !noColor, colorErr: errTTY && !noColor,
		termWidth: func() int {
			if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil && w > 20 {
				return w
			}
			return 80
		},
	}
}
