//go:build cgo

// Package cext holds the only C code coderag writes: the `code` FTS5
// tokenizer (tokenizer.c), the registration of it and of sqlite-vec on
// every SQLite connection the process opens, and the process-wide set-up
// of the C libraries coderag links: tree-sitter is switched back from
// go-tree-sitter's Go allocator hooks (a cgo callback per malloc and free,
// about a fifth of parse time) to the C library's allocator.
//
// The C is compiled against the SQLite header that github.com/mattn/go-sqlite3
// bundles when built through the Makefile (see sqlite3h/sqlite3.h);
// HeaderVersion and LibVersion let tests check that.
package cext

/*
#cgo LDFLAGS: -lm
#include <stdlib.h>
#include "sqlite3.h"
#include "tokenizer.h"

static const char *cr_header_version(void) { return SQLITE_VERSION; }

// ts_set_allocator is tree-sitter's (linked through go-tree-sitter);
// NULL functions select malloc, calloc, realloc and free.
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t),
                      void *(*)(void *, size_t), void (*)(void *));
static void cr_treesitter_libc_allocator(void) { ts_set_allocator(0, 0, 0, 0); }
*/
import "C"

import (
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	sqlite3 "github.com/mattn/go-sqlite3"     // links the SQLite amalgamation the C code calls
	_ "github.com/tree-sitter/go-tree-sitter" // links tree-sitter, whose allocator Register resets

	"coderag/core/codetok"
)

// DiskFull reports whether err is SQLite saying the database or its
// journal could not grow (SQLITE_FULL).
func DiskFull(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrFull
}

// Transient reports whether err is SQLite saying that another connection
// changed the schema (a crawl that re-embeds drops and creates the vector
// table, and a virtual table's constructor then fails with SQLITE_SCHEMA
// instead of being prepared again) or held a lock at that moment: the same
// read tried again a moment later succeeds.
func Transient(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case sqlite3.ErrSchema, sqlite3.ErrBusy, sqlite3.ErrLocked:
		return true
	}
	return false
}

var (
	once   sync.Once
	regErr error
)

// Driver is the database/sql driver name Register adds: go-sqlite3 with
// every connection reading the database through a memory map (up to
// MMapSize bytes) instead of a read system call per page, which matters
// for scans of large tables (an incremental crawl's counts and file list;
// it took the crawl's pread calls from 16,700 to none at 50 MB). Writes
// still go through the write-ahead log as usual.
const Driver = "coderag-sqlite3"

// MMapSize is the largest part of a database file a connection maps.
const MMapSize = 1 << 30

// Register makes every SQLite connection opened afterwards in this process
// load sqlite-vec and the `code` FTS5 tokenizer, registers Driver, and
// makes tree-sitter allocate with the C library. Call it before any parsing starts (the
// allocator switch is not synchronized with running parses; memory from
// either allocator comes from the same malloc, so trees made before stay
// valid). It is safe to call more than once and from several goroutines;
// only the first call acts.
func Register() error {
	once.Do(func() {
		C.cr_treesitter_libc_allocator()
		vec.Auto()
		if rc := C.coderag_register(); rc != 0 {
			regErr = fmt.Errorf("register code tokenizer: sqlite3_auto_extension returned %d", int(rc))
		}
		sql.Register(Driver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size = %d", MMapSize), nil)
			return err
		}})
	})
	return regErr
}

// RegisterLengths hands the row lengths of an FTS5 table to the
// coderag_bm25 ranking function: packed holds one little-endian length
// plus one per rowid from base, width (2 or 4) bytes each, 0 for a row it
// does not hold (whose length the function reads from the table). It
// returns the handle to pass as the function's second argument, or 0 when
// the width is neither or the process holds too many already; free it
// with FreeLengths once no statement uses it.
func RegisterLengths(base int64, width int, packed []byte) int {
	if len(packed) == 0 || width <= 0 || len(packed)%width != 0 {
		return 0
	}
	return int(C.coderag_lengths_register(C.sqlite3_int64(base), C.int(width),
		(*C.uchar)(unsafe.Pointer(&packed[0])), C.sqlite3_int64(len(packed)/width)))
}

// FreeLengths frees the lengths RegisterLengths registered under h.
func FreeLengths(h int) { C.coderag_lengths_free(C.int(h)) }

// HeaderVersion is the SQLite version of the header the C code was compiled
// against.
func HeaderVersion() string { return C.GoString(C.cr_header_version()) }

// LibVersion is the version of the SQLite library linked into the binary.
func LibVersion() string { return C.GoString(C.sqlite3_libversion()) }

// Count runs the C tokenizer over s and returns how many tokens it emits;
// benchmarks use it to time the tokenizer alone.
func Count(s string) int {
	if len(s) == 0 {
		return 0
	}
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return int(C.coderag_tokenize_count(cs, C.int(len(s))))
}

// Tokenize runs the C tokenizer over s in document mode and returns its
// tokens, so that tests can hold it against codetok.Tokenize.
func Tokenize(s string) ([]codetok.Token, error) { return tokenize(s, false) }

// QueryTokens runs the C tokenizer in query mode (codetok.QueryTokens).
func QueryTokens(s string) ([]codetok.Token, error) { return tokenize(s, true) }

func tokenize(s string, query bool) ([]codetok.Token, error) {
	if len(s) == 0 {
		return nil, nil
	}
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	var out C.coderag_tokens
	defer C.coderag_tokens_free(&out)
	q := C.int(0)
	if query {
		q = 1
	}
	if rc := C.coderag_tokenize_collect(q, cs, C.int(len(s)), &out); rc != 0 {
		return nil, fmt.Errorf("tokenize %d bytes: sqlite error %d", len(s), int(rc))
	}
	n := int(out.n)
	if n == 0 {
		return nil, nil
	}
	items := unsafe.Slice(out.items, n)
	text := unsafe.Slice((*byte)(unsafe.Pointer(out.text)), n*(codetok.MaxTokenBytes+1))
	toks := make([]codetok.Token, n)
	for i, it := range items {
		off := i * (codetok.MaxTokenBytes + 1)
		toks[i] = codetok.Token{
			Text:      string(text[off : off+int(it.len)]),
			Start:     int(it.start),
			End:       int(it.end),
			Colocated: it.colocated != 0,
		}
	}
	return toks, nil
}
