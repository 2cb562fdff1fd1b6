package search

import (
	"path"
	"slices"
	"strings"

	"coderag/core"
)

// qualifierScopes returns the names a qualifier of a chunk's declaration
// may be. home holds what qualifies it directly: the types it is declared
// in (CartService of CartService.Checkout), or, at the top level of its
// file, the file's directory and name (log of log/log.go, views of
// views.py). scope holds those and the rest of its path and scope, whole
// (log of log/slog/logger.go; Client is not the scope of ClientConn.Do).
func qualifierScopes(c core.Chunk, pathWords map[string]bool) (scope, home map[string]bool) {
	scope, home = map[string]bool{}, map[string]bool{}
	for w := range pathWords {
		scope[w] = true
	}
	names := func(part string, into map[string]bool) {
		into[normIdent(part)] = true
		for _, name := range strings.FieldsFunc(part, func(r rune) bool { return strings.ContainsRune(".:/#\\ ", r) }) {
			into[normIdent(name)] = true
		}
	}
	parts := strings.Split(c.ContextPrefix, " > ")
	for _, part := range parts {
		names(part, scope)
	}
	if len(parts) > 2 {
		for _, part := range parts[1 : len(parts)-1] {
			names(part, home)
		}
	} else {
		dir, file := path.Split(c.FilePath)
		home[normIdent(path.Base(dir))] = true
		home[normIdent(strings.TrimSuffix(file, path.Ext(file)))] = true
	}
	delete(home, "")
	return scope, home
}

// promoteDeclaration puts first the declaration of the one qualified name
// a query holds (errors.Is, CartService.Checkout, views.index): the best
// ranked chunk outside tests that declares the name directly under its
// qualifier (home of qualifierScopes). A question about a name wants its
// definition first, and the lists, which count how often the words
// occur, rank above it the callers that write the whole name and the
// other packages' declarations of a common one (New, Do). A query with
// two qualified names or none is left as it is (and so, by the caller,
// is one that asks for usages or reads as a pasted message). The promoted
// hit's Explain.Declares says so.
func promoteDeclaration(hits []core.Hit, text string, depth int) []core.Hit {
	var written, qual, name string
	for _, t := range Terms(text) {
		if q, n := qualified(t); n != "" {
			if name != "" {
				return hits
			}
			written = bareName(t)
			qual, name = q, n
		}
	}
	if name == "" || normIdent(qual) == "" {
		return hits
	}
	// The name as written (connect) before names that differ from it in
	// case or underscores only (_connect).
	at := -1
	for i, h := range hits[:min(len(hits), depth)] {
		c := h.Chunk
		if core.IsTestPath(c.FilePath) || !declaresName(h, normIdent(name)) {
			continue
		}
		if _, home := qualifierScopes(c, nil); !home[normIdent(qual)] {
			continue
		}
		if at < 0 {
			at = i
		}
		if slices.ContainsFunc(strings.Split(c.SymbolName, ", "), func(s string) bool {
			return s[strings.LastIndexAny(s, ".:/")+1:] == name
		}) {
			at = i
			break
		}
	}
	if at < 0 {
		return hits
	}
	h := hits[at]
	h.Explain.Declares = written
	if at > 0 {
		h.Score = hits[0].Score + 0.01
		hits = append(append([]core.Hit{h}, hits[:at]...), hits[at+1:]...)
	} else {
		hits[0] = h
	}
	return hits
}
