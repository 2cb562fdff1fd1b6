// Command gencommon writes core/mention's list of words too common in
// technical prose to name a service on their own (common.txt): the words
// of at least -min of the doc comments and docstrings that coderag's own
// miner (core/train.Mine) finds in the source trees it is given. Run by
// `go generate ./core/mention` over the Go standard library and Debian's
// Python standard library:
//
//	go run ./internal/gencommon -o common.txt $(go env GOROOT)/src /usr/lib/python3.11
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"coderag/core/train"
)

func main() {
	out := flag.String("o", "common.txt", "the list to write")
	share := flag.Float64("min", 0.002, "the least share of comments a word is in")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gencommon [-o FILE] [-min SHARE] SOURCE_TREE...")
		os.Exit(2)
	}
	if err := run(context.Background(), *out, *share, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gencommon:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out string, share float64, roots []string) error {
	df := map[string]int{}
	n := 0
	for _, root := range roots {
		tmp, err := os.MkdirTemp("", "gencommon")
		if err != nil {
			return err
		}
		pairs, err := train.Mine(ctx, root, tmp, train.MineOptions{})
		os.RemoveAll(tmp)
		if err != nil {
			return fmt.Errorf("mine %s: %w", root, err)
		}
		for _, p := range pairs {
			n++
			seen := map[string]bool{}
			for _, w := range strings.FieldsFunc(strings.ToLower(p.Query), func(r rune) bool { return !unicode.IsLetter(r) }) {
				if utf8.RuneCountInString(w) >= 3 && !seen[w] {
					seen[w] = true
					df[w]++
				}
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("no doc comments in %s", strings.Join(roots, ", "))
	}
	var words []string
	for w, c := range df {
		if float64(c) >= share*float64(n) {
			words = append(words, w)
		}
	}
	sort.Strings(words)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# Words in at least %.1f%% of the %d doc comments and docstrings coderag's\n", share*100, n)
	fmt.Fprintf(w, "# miner finds in: %s (%s). Written by `go generate ./core/mention`.\n", strings.Join(bases(roots), ", "), runtime.Version())
	for _, word := range words {
		fmt.Fprintln(w, word)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// bases names the source trees without the machine's paths to them.
func bases(roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = filepath.Base(filepath.Dir(r)) + "/" + filepath.Base(r)
	}
	return out
}
