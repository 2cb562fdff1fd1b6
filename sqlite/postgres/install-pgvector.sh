#!/usr/bin/env bash
# install-pgvector.sh builds the pgvector extension from source and installs
# it into the local PostgreSQL server (make pgvector), so that the store's
# HNSW path is used and tested. The source comes from the Go module proxy
# (github.com/pgvector/pgvector is served there like any GitHub tag); the
# server headers from Debian's postgresql-server-dev-N. Needs root.
# Does nothing when that version is installed already.
set -euo pipefail
version=${PGVECTOR_VERSION:-v0.8.1}
go=${GO:-go}

postgres=$(command -v postgres || ls /usr/lib/postgresql/*/bin/postgres 2>/dev/null | sort -V | tail -1 || true)
[ -n "$postgres" ] || { echo "pgvector: no PostgreSQL server found; nothing to install" >&2; exit 1; }
major=$("$postgres" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)*.*/\1/')
pg_config=/usr/lib/postgresql/$major/bin/pg_config
# The headers, not pgxs.mk alone: a machine may have pgxs.mk without them.
if [ ! -x "$pg_config" ] || [ ! -f "$("$pg_config" --pgxs 2>/dev/null || echo /nonexistent)" ] ||
	[ ! -f "$("$pg_config" --includedir-server 2>/dev/null || echo /nonexistent)/postgres.h" ]; then
	echo "pgvector: installing postgresql-server-dev-$major for the server headers"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq "postgresql-server-dev-$major" >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get install -y -qq "postgresql-server-dev-$major" >/dev/null; }
fi
control=$("$pg_config" --sharedir)/extension/vector.control
if [ -f "$control" ] && grep -q "default_version = '${version#v}'" "$control"; then
	echo "pgvector ${version#v} is installed for PostgreSQL $major"
	exit 0
fi
dir=$(GOFLAGS=-mod=mod "$go" mod download -json "github.com/pgvector/pgvector@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
[ -d "$dir" ] || { echo "pgvector: the Go module proxy did not serve github.com/pgvector/pgvector@$version" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$dir/." "$work" && chmod -R u+w "$work"
# OPTFLAGS="": no -march=native, so the library runs on any machine of
# this architecture.
make -C "$work" -s PG_CONFIG="$pg_config" OPTFLAGS="" -j2 >/dev/null
make -C "$work" -s PG_CONFIG="$pg_config" install >/dev/null
echo "pgvector ${version#v} installed for PostgreSQL $major"
