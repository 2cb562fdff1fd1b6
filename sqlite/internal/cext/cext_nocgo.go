//go:build !cgo

package cext

import (
	"errors"

	"coderag/core/codetok"
)

// ErrNoCgo is returned when coderag was built without cgo: its SQLite file
// needs the C SQLite library, sqlite-vec and the code tokenizer.
var ErrNoCgo = errors.New("coderag was built without cgo: build with CGO_ENABLED=1 and a C compiler (make build)")

// Register fails: a build without cgo has no SQLite.
func Register() error { return ErrNoCgo }

// HeaderVersion is empty without cgo.
func HeaderVersion() string { return "" }

// LibVersion is empty without cgo.
func LibVersion() string { return "" }

// Tokenize fails without cgo.
func Tokenize(s string) ([]codetok.Token, error) { return nil, ErrNoCgo }

// Count is 0 without cgo.
func Count(s string) int { return 0 }

// QueryTokens fails without cgo.
func QueryTokens(s string) ([]codetok.Token, error) { return nil, ErrNoCgo }

// RegisterLengths registers nothing without cgo.
func RegisterLengths(base int64, width int, packed []byte) int { return 0 }

// FreeLengths does nothing without cgo.
func FreeLengths(h int) {}
