# coderag — build, run, test. Needs Go and a C compiler (cgo).
#
#   make run    build, crawl the bundled sample workspace, show what is in it
#   make test   gofmt check, go vet and all tests
#   make bench  benchmarks
#   make eval   retrieval evaluation on the sample

GO        ?= go
TAGS      := sqlite_fts5
BIN       := bin/coderag
TUI_BIN   := bin/coderag-tui
DB        ?= data/coderag.db
SAMPLE    := testdata/sample

# All C in the binary (go-sqlite3's amalgamation, sqlite-vec, our FTS5
# tokenizer) is compiled against the SQLite header go-sqlite3 bundles:
# sqlite/internal/cext/sqlite3h/sqlite3.h forwards to it.
MATTN_DIR := $(shell $(GO) mod download github.com/mattn/go-sqlite3 >/dev/null 2>&1; $(GO) list -m -f '{{.Dir}}' github.com/mattn/go-sqlite3 2>/dev/null)
export CGO_ENABLED := 1
export CGO_CFLAGS  := -O2 -g -I$(CURDIR)/sqlite/internal/cext/sqlite3h -I$(MATTN_DIR)

VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)

.PHONY: all build run test vet fmt-check check-deps tapes demo bench eval eval-real tune model fuzz clean deps pgvector

all: build

deps:
	@test -n "$(MATTN_DIR)" || { echo "cannot find github.com/mattn/go-sqlite3: is the Go module proxy reachable?"; exit 1; }
	@command -v $${CC:-gcc} >/dev/null || { echo "coderag needs a C compiler for cgo (gcc or clang)"; exit 1; }
	@test -x $(BIN) || echo "first build: cgo compiles SQLite, sqlite-vec and the tree-sitter grammars; this takes a few minutes, once"

# bin/coderag is built without the terminal UI (-tags notui) and hands
# `coderag tui` and `crawl --tui` to bin/coderag-tui, the same program with
# it: the UI's libraries cost every process ~20 ms of start-up, which a
# one-shot `coderag query` does not pay.
build: deps
	$(GO) build -tags $(TAGS),notui -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/coderag
	$(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(TUI_BIN) ./cmd/coderag

run: build
	$(BIN) crawl --db $(DB) --repo-path $(SAMPLE)/platform --repo-path $(SAMPLE)/storefront \
		--slack-export acme-slack=$(SAMPLE)/slack --transcripts-dir $(SAMPLE)/transcripts --gdocs-dir $(SAMPLE)/gdocs
	@if [ -t 1 ] && $(BIN) tui --help >/dev/null 2>&1; then \
		$(BIN) tui --db $(DB); \
	else \
		$(BIN) stats --db $(DB); \
		echo; echo '$$ $(BIN) query --db $(DB) getUserProfile'; \
		$(BIN) query --db $(DB) -k 3 getUserProfile; \
		echo; echo '$$ $(BIN) query --db $(DB) "redis OOMKilled cart"'; \
		$(BIN) query --db $(DB) -k 3 "redis OOMKilled cart"; \
		echo; echo '$$ $(BIN) graph --db $(DB) --service redis --blast-radius'; \
		$(BIN) graph --db $(DB) --service redis --blast-radius; \
	fi

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet: deps
	$(GO) vet -tags $(TAGS) ./...

# core and the TUI never touch the database driver or our C: tui -> core <- sqlite.
check-deps:
	@bad=$$($(GO) list -tags $(TAGS) -deps ./core/... $$(test -d tui && echo ./tui/...) | grep -E '^(coderag/sqlite|database/sql$$|github.com/mattn/go-sqlite3)' || true); \
	if [ -n "$$bad" ]; then echo "core or tui imports the store: $$bad"; exit 1; fi

test: deps fmt-check check-deps vet tapes
	$(GO) test -tags $(TAGS) -count=1 ./...

# VHS is pinned in its own module (.ci/vhs): its dependencies do not build
# against Bubble Tea v2's. validate checks the tapes without ttyd/ffmpeg.
VHS := bin/vhs
$(VHS): .ci/vhs/go.mod
	$(GO) -C .ci/vhs build -o $(CURDIR)/$(VHS) github.com/charmbracelet/vhs

tapes: $(VHS)
	@for t in vhs/*.tape; do $(VHS) validate $$t || exit 1; done

# demo renders the tapes to GIFs in vhs/ (needs ttyd and ffmpeg, which vhs
# drives; Debian bookworm has no ttyd package).
demo: build $(VHS)
	@command -v ttyd >/dev/null && command -v ffmpeg >/dev/null || { echo "make demo needs ttyd and ffmpeg on PATH (vhs renders through them)"; exit 1; }
	$(BIN) crawl --db data/demo.db --repo-path $(SAMPLE)/platform --repo-path $(SAMPLE)/storefront \
		--slack-export acme-slack=$(SAMPLE)/slack --transcripts-dir $(SAMPLE)/transcripts --gdocs-dir $(SAMPLE)/gdocs >/dev/null
	@for t in vhs/*.tape; do echo "vhs $$t"; $(VHS) $$t || exit 1; done

# Micro benchmarks run for the usual second; the store benchmarks build
# 10k/100k-chunk databases and time their own loops, so they run once.
# pgvector builds the pgvector extension (from the Go module proxy) into
# the local PostgreSQL server, for the store's HNSW path and its tests
# (needs root; they skip without it).
pgvector:
	GO=$(GO) sqlite/postgres/install-pgvector.sh

bench: build
	$(GO) test -tags $(TAGS) -run '^$$' -bench . ./core/... ./sqlite/internal/...
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchtime 1x -timeout 30m ./sqlite/ ./sqlite/postgres/
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchtime 1x -timeout 30m ./tui/
	CODERAG_BIN=$(abspath $(BIN)) $(GO) test -tags $(TAGS) -run '^$$' -bench 'Crawl50MB|ServeSearch|GoStdlib|OneShot100k' -benchtime 1x -timeout 60m ./cmd/coderag

# eval crawls the sample into its own database and runs the sample
# questions in every search mode (the table in docs/eval.md).
EVAL_DB := data/eval.db
# eval crawls the sample afresh: an index left from before keeps the
# embedder it was made with, and the numbers would be that model's.
eval: build
	rm -f $(EVAL_DB) $(EVAL_DB)-wal $(EVAL_DB)-shm
	$(BIN) crawl --db $(EVAL_DB) --repo-path $(SAMPLE)/platform --repo-path $(SAMPLE)/storefront \
		--slack-export acme-slack=$(SAMPLE)/slack --transcripts-dir $(SAMPLE)/transcripts --gdocs-dir $(SAMPLE)/gdocs >/dev/null
	$(BIN) eval --db $(EVAL_DB) --questions testdata/eval/questions.jsonl

# fuzz runs each fuzz target for FUZZTIME (default 1m).
FUZZTIME ?= 1m
fuzz: deps
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz FuzzTokenize -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./core/codetok
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz FuzzTokenizeAgree -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./sqlite/internal/cext
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz FuzzWindow -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./core/chunk
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz FuzzTerraformOutputs -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./core/chunk
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz FuzzCode -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./core/chunk
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz FuzzDocsAndConfig -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./core/chunk
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz FuzzParseTrace -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./core/search
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz FuzzParseRequests -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./core/search
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz FuzzParsePodNames -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./core/search

clean:
	rm -rf bin data

# eval-real crawls the real repositories of ../shared/eval and scores the
# service graph and retrieval there (with the plain full-text baseline);
# it says so and stops when ../shared/eval is absent. Not part of 'make test'.
eval-real: build
	.ci/eval-real $(BIN)

# tune learns ranking parameters (data/params.tuned.json, for --params; the
# built-in core/search/params.json changes only when a learned set beats it
# on make eval-real) from the doc comments and doc headings of three Go
# repositories the shipped embedding model never trained on (KEDA, Knative
# Serving, Thanos; Apache-2.0), fetched at fixed versions from the Go
# module proxy, indexed with the default embedder (the shipped model).
# Never from ../shared/eval, the sample or a question file.
TUNE_MODULES := github.com/kedacore/keda/v2@v2.17.2 knative.dev/serving@v0.45.0 github.com/thanos-io/thanos@v0.39.2
tune: build
	@mkdir -p data
	dirs=$$(cd / && $(GO) mod download -json $(TUNE_MODULES) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p') && \
		test -n "$$dirs" && $(BIN) tune --out data/params.tuned.json --questions 1200 $$dirs

# model trains the shipped embedding model (core/embed/model/static.bin)
# from the sources core/embed/model/README.md lists, fetched into
# MODEL_WORK by core/embed/model/sources.sh (Debian packages, installed or
# downloaded and unpacked as debian.txt pins them; pinned npm tarballs; the
# Go toolchain and module caches; 6.5 GB). About 80 minutes on 2 cores
# once they are fetched (2026-11-28): 35 to mine the pairs, 31 to train,
# 12 to report on the held-out pairs.
# Rebuild afterwards: the binary embeds the model. The mined pairs are
# kept and read again when they exist; their file is named for how they
# were mined (each comment with its own declaration, chunk.Options.KeepSmall),
# so a work folder mined before that is mined again, not reused.
MODEL_WORK ?= /tmp/coderag-model
model: build
	$(BIN) model --out core/embed/model/static.bin --pairs $(MODEL_WORK)/pairs-own-declarations.jsonl \
		--epochs 4 --ppmi-init $$(core/embed/model/sources.sh $(MODEL_WORK))
