package sqlite

import (
	"testing"

	"coderag/core/storetest"
)

// TestContract runs the store contract (core/storetest) that the
// PostgreSQL store passes too.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store { return openTemp(t) })
}
