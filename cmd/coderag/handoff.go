package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// tuiHelper is the program a coderag built without the terminal UI
// (-tags notui, as make build builds bin/coderag) hands `coderag tui` and
// `coderag crawl --tui` to: the same coderag with the UI, which make build
// puts beside it. The UI's libraries (Glamour, Chroma's lexers and styles)
// take about 20 ms to initialise in every process that links them, which
// a one-shot `coderag query` should not pay.
const tuiHelper = "coderag-tui"

// errNoTUIHelper says coderag-tui is neither beside this coderag nor on PATH.
var errNoTUIHelper = errors.New("this coderag is built without the terminal UI, which is in " + tuiHelper)

// findTUIHelper returns the path of coderag-tui: beside this executable
// first, then on PATH.
func findTUIHelper() (string, error) {
	self, err := os.Executable()
	if err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			p := filepath.Join(filepath.Dir(self), tuiHelper)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(tuiHelper); err == nil {
		return p, nil
	}
	where := "on PATH"
	if self != "" {
		where = "beside " + self + " or on PATH"
	}
	return "", fmt.Errorf("%w, and there is no %s %s: make build builds both into bin/", errNoTUIHelper, tuiHelper, where)
}

// handOffTUI replaces this process with coderag-tui, given this process's
// arguments: the terminal, the environment and the exit status are the
// helper's. It returns only when that fails.
func handOffTUI() error {
	p, err := findTUIHelper()
	if err != nil {
		return err
	}
	args := append([]string{p}, os.Args[1:]...)
	if err := syscall.Exec(p, args, os.Environ()); err != nil {
		return fmt.Errorf("run %s: %w", p, err)
	}
	return nil
}

// completeTUI asks coderag-tui to complete `coderag tui ARGS TOCOMPLETE`
// (cobra's hidden __complete command) and returns its answer: the
// candidates, one per line, then ":" and the directive.
func completeTUI(args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	p, err := findTUIHelper()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	argv := append(append([]string{cobra.ShellCompRequestCmd, "tui"}, args...), toComplete)
	out, err := exec.Command(p, argv...).Output()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	d, err := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], ":"))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return lines[:len(lines)-1], cobra.ShellCompDirective(d)
}
