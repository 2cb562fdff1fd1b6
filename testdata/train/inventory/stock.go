// Package inventory keeps stock levels per warehouse and reserves items
// for orders.
package inventory

import (
	"errors"
	"sync"
)

// ErrOutOfStock is returned when a reservation asks for more than is left.
var ErrOutOfStock = errors.New("out of stock")

// Store holds the stock of every product in every warehouse.
type Store struct {
	mu       sync.Mutex
	levels   map[string]int
	reserved map[string]int
}

// NewStore returns an empty store with no products.
func NewStore() *Store {
	return &Store{levels: map[string]int{}, reserved: map[string]int{}}
}

// Restock adds delivered units of a product to a warehouse's shelves.
func (s *Store) Restock(warehouse, sku string, units int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.levels[warehouse+"/"+sku] += units
}

// Reserve holds units for an order so that no other order can take them.
func (s *Store) Reserve(warehouse, sku string, units int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := warehouse + "/" + sku
	if s.levels[key]-s.reserved[key] < units {
		return ErrOutOfStock
	}
	s.reserved[key] += units
	return nil
}

// Release gives reserved units back when an order is cancelled.
func (s *Store) Release(warehouse, sku string, units int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserved[warehouse+"/"+sku] -= units
}

// Available counts the units that are neither sold nor held for an order.
func (s *Store) Available(warehouse, sku string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := warehouse + "/" + sku
	return s.levels[key] - s.reserved[key]
}
