// Package lazyre holds regular expressions that compile the first time
// they are used rather than when their package initialises.
//
// coderag has a few hundred package-level patterns (chunkers, extractors,
// the search's query parsers); compiled at start-up they cost every
// process several milliseconds, most of them in patterns that process
// never runs. A one-shot `coderag query` should not pay for the Slack
// export parser. Under `go test` every pattern still compiles at once, so
// a bad pattern fails its package's tests, as regexp.MustCompile would.
package lazyre

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// inTest is whether this process is a test binary.
var inTest = len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")

// Regexp is a regular expression compiled on first use. Its methods are
// those of regexp.Regexp.
type Regexp struct {
	str  string
	once sync.Once
	rx   *regexp.Regexp
}

// New returns the regular expression str, to be compiled (with
// regexp.MustCompile) the first time one of its methods runs.
func New(str string) *Regexp {
	r := &Regexp{str: str}
	if inTest {
		r.re()
	}
	return r
}

func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.str) })
	return r.rx
}

func (r *Regexp) String() string { return r.str }

func (r *Regexp) Match(b []byte) bool        { return r.re().Match(b) }
func (r *Regexp) MatchString(s string) bool  { return r.re().MatchString(s) }
func (r *Regexp) Find(b []byte) []byte       { return r.re().Find(b) }
func (r *Regexp) FindIndex(b []byte) []int   { return r.re().FindIndex(b) }
func (r *Regexp) FindString(s string) string { return r.re().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int {
	return r.re().FindStringIndex(s)
}
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.re().FindSubmatch(b) }
func (r *Regexp) FindSubmatchIndex(b []byte) []int {
	return r.re().FindSubmatchIndex(b)
}
func (r *Regexp) FindStringSubmatch(s string) []string {
	return r.re().FindStringSubmatch(s)
}
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.re().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAll(b []byte, n int) [][]byte { return r.re().FindAll(b, n) }
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int {
	return r.re().FindAllIndex(b, n)
}
func (r *Regexp) FindAllString(s string, n int) []string {
	return r.re().FindAllString(s, n)
}
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.re().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.re().FindAllSubmatch(b, n)
}
func (r *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return r.re().FindAllSubmatchIndex(b, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.re().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) ReplaceAllFunc(src []byte, repl func([]byte) []byte) []byte {
	return r.re().ReplaceAllFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.re().Split(s, n) }
