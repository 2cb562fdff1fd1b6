package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxSession runs this test binary as `coderag tui` in a detached tmux
// session of a fixed size and reads its screen.
type tmuxSession struct {
	t    *testing.T
	name string
	sock string
}

func newTmux(t *testing.T, w, h int, args ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	s := &tmuxSession{t: t, name: "coderag", sock: filepath.Join(t.TempDir(), "tmux.sock")}
	cmdline := "env CODERAG_AS_BINARY=1 NO_COLOR=1 " + shellQuote(os.Args[0])
	for _, a := range args {
		cmdline += " " + shellQuote(a)
	}
	cmdline += "; echo coderag-exited-$?; sleep 60"
	s.tmux("new-session", "-d", "-s", s.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmdline)
	t.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys sends keys one at a time, pausing between them so that an Escape is
// never read as the start of an Alt sequence.
func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.tmux("send-keys", "-t", s.name, k)
		time.Sleep(120 * time.Millisecond)
	}
}

// text types literal text.
func (s *tmuxSession) text(txt string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", s.name, "-l", txt)
}

func (s *tmuxSession) screen() string {
	return s.tmux("capture-pane", "-p", "-t", s.name)
}

// waitFor waits until the screen holds every want, and returns it.
func (s *tmuxSession) waitFor(what string, want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var scr string
	for time.Now().Before(deadline) {
		scr = s.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(scr, w) {
				ok = false
				break
			}
		}
		if ok {
			return scr
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("%s: the screen never showed %q:\n%s", what, want, scr)
	return ""
}

// TestTUIEndToEnd drives the real binary in tmux on the sample database:
// a question, the expected file in the results, its preview, the graph, a
// blast radius, quit.
func TestTUIEndToEnd(t *testing.T) {
	db := crawlSample(t)
	s := newTmux(t, 120, 32, "tui", "--db", db)
	s.waitFor("start", "Type to search everything at once", "chunks")

	s.text("where do we load the user profile")
	scr := s.waitFor("search", "src/clients/accounts.ts", "results")
	if !strings.Contains(strings.Split(scr, "\n")[0], "where do we load the user profile") {
		t.Errorf("the search box does not show the query:\n%s", scr)
	}

	s.keys("Escape")
	for i := 0; i < 10 && !strings.Contains(firstSelected(s.screen()), "getUserProfile"); i++ {
		s.keys("j")
	}
	s.keys("Enter")
	s.waitFor("preview", "export async function getUserProfile", "▶")

	s.keys("Escape", "g")
	s.waitFor("graph", "service graph", "depend on accounts")
	for i := 0; i < 20 && !strings.Contains(s.screen(), "depend on cart"); i++ {
		s.keys("j")
	}
	s.waitFor("cart selected", "depend on cart")
	s.keys("b")
	s.waitFor("blast radius", "cart down breaks", "checkout")

	s.keys("q")
	s.waitFor("quit", "coderag-exited-0")
}

// firstSelected is the preview's header: the selected hit's location.
func firstSelected(scr string) string {
	lines := strings.Split(scr, "\n")
	if len(lines) < 3 {
		return ""
	}
	return lines[2]
}

// TestTUINeedsTerminal: without a terminal the TUI says what to use.
func TestTUINeedsTerminal(t *testing.T) {
	code, _, errs := coderag(t, "tui", "--db", crawlSample(t))
	if code != 2 || !strings.Contains(errs, "needs a terminal") {
		t.Errorf("tui without a terminal: exit %d, %q; want 2 and a hint", code, errs)
	}
}

// TestReadersCreateNothing: a mistyped --db is an error naming the path
// for tui as for query, and leaves no file behind; a database URL is
// refused, not taken for a directory.
func TestReadersCreateNothing(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.db")
	for _, cmd := range []string{"tui", "query", "graph", "stats"} {
		args := []string{cmd, "--db", typo}
		if cmd == "query" {
			args = append(args, "redis")
		}
		code, _, errs := coderag(t, args...)
		if code == 0 || !strings.Contains(errs, typo) || !strings.Contains(errs, "crawl") {
			t.Errorf("%s on a missing database: exit %d, %q; want an error naming it", cmd, code, errs)
		}
	}
	code, _, errs := coderag(t, "tui", "--db", "sqlite://"+typo)
	if code == 0 || !strings.Contains(errs, "not supported") {
		t.Errorf("tui --db sqlite://%s: exit %d, %q", typo, code, errs)
	}
	// A PostgreSQL index that cannot be reached is an error naming it.
	url := "postgres://user@127.0.0.1:1/coderag"
	code, _, errs = coderag(t, "tui", "--db", url)
	if code == 0 || !strings.Contains(errs, "connect to "+url) {
		t.Errorf("tui --db %s: exit %d, %q", url, code, errs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("readers created %v", entries)
	}
	if _, err := os.Stat("postgres:"); err == nil {
		t.Errorf("a directory named postgres: was created")
		os.RemoveAll("postgres:")
	}
}

// TestCrawlProgressModes: --progress lines prints periodic lines, none
// prints no progress, json prints events, a bad value is a usage error.
// TestCrawlProgressCompact: a crawl that rewrote every chunk says it
// compacts the full-text indexes, and times it.
func TestCrawlProgressCompact(t *testing.T) {
	src := filepath.Join(sampleDir, "storefront")
	db := filepath.Join(t.TempDir(), "p.db")
	for i, want := range []string{"", "compacting the full-text indexes"} {
		code, out, errs := coderag(t, "crawl", "--db", db, "--embedder", "none", "--progress", "lines", "--repo-path", src)
		if code != 0 {
			t.Fatalf("crawl %d: exit %d: %s", i+1, code, errs)
		}
		if got := strings.Contains(errs, "compacting the full-text indexes"); got != (want != "") {
			t.Errorf("crawl %d: compacting said %v, want %v:\n%s", i+1, got, want != "", errs)
		}
		if got := strings.Contains(out+errs, "· compact "); got != (want != "") {
			t.Errorf("crawl %d: compact timed %v, want %v:\n%s%s", i+1, got, want != "", out, errs)
		}
	}
}

func TestCrawlProgressModes(t *testing.T) {
	src := filepath.Join(sampleDir, "storefront")
	for _, tt := range []struct {
		mode    string
		code    int
		errWant string
		errNot  string
		outWant string
	}{
		{mode: "lines", errWant: "crawling storefront"},
		{mode: "none", errNot: "crawling storefront"},
		{mode: "json", outWant: `"kind":"source_start"`},
		{mode: "fancy", code: 2, errWant: "--progress \"fancy\""},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "p.db")
			code, out, errs := coderag(t, "crawl", "--db", db, "--embedder", "none", "--progress", tt.mode, "--repo-path", src)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errs)
			}
			if tt.errWant != "" && !strings.Contains(errs, tt.errWant) {
				t.Errorf("stderr lacks %q:\n%s", tt.errWant, errs)
			}
			if tt.errNot != "" && strings.Contains(errs, tt.errNot) {
				t.Errorf("stderr has %q:\n%s", tt.errNot, errs)
			}
			if tt.outWant != "" && !strings.Contains(out, tt.outWant) {
				t.Errorf("stdout lacks %q:\n%s", tt.outWant, out)
			}
		})
	}
}
