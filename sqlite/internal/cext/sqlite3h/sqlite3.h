/*
 * sqlite3.h routes every `#include "sqlite3.h"` of coderag's cgo packages
 * (sqlite-vec and our FTS5 tokenizer) to the header of the SQLite amalgamation
 * that github.com/mattn/go-sqlite3 compiles and links, so that all C code in the
 * binary is built against the SQLite it runs with. The Makefile puts this
 * directory and go-sqlite3's module directory on CGO_CFLAGS.
 */
#include "sqlite3-binding.h"
