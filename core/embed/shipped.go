package embed

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// shippedModel is the static model trained by 'make model' from the
// sources listed in model/README.md.
//
//go:embed model/static.bin
var shippedModel []byte

var shipped struct {
	once sync.Once
	m    *Static
	err  error
}

// Shipped returns the static model shipped in the binary. Its bytes are
// read in place: loading checks their layout and decodes nothing.
func Shipped() (*Static, error) {
	shipped.once.Do(func() {
		shipped.m, shipped.err = loadStatic(shippedModel, false)
		if shipped.err != nil {
			shipped.err = fmt.Errorf("the shipped embedding model: %w", shipped.err)
		}
	})
	return shipped.m, shipped.err
}

// IsStatic reports whether id names vectors of a static model.
func IsStatic(id string) bool { return strings.HasPrefix(id, StaticPrefix) }

// ShippedFor returns the shipped model when it is the one whose vectors
// have the given ID, or an error saying which model the index holds.
func ShippedFor(id string) (*Static, error) {
	m, err := Shipped()
	if err != nil {
		return nil, err
	}
	if m.ID() != id {
		return nil, fmt.Errorf("the index holds vectors of %s and this coderag ships %s: crawl again with --reembed to search it semantically", id, m.ID())
	}
	return m, nil
}
