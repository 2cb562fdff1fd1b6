package postgres

import (
	"context"
	"testing"

	"coderag/core/storetest"
	"coderag/sqlite/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestContract runs the store contract (core/storetest) that the SQLite
// store passes too, against a real PostgreSQL server.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store { return openTest(t) })
}
