// Package inventory keeps stock levels for the warehouse service.
//
// It is used by the checkout and catalog services.
package inventory

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrOutOfStock is returned when a reservation cannot be satisfied.
var ErrOutOfStock = errors.New("out of stock")

var _ fmt.Stringer = Item{}

const (
	// DefaultTTL is how long a reservation holds.
	DefaultTTL = 15 * time.Minute
	maxBatch   = 500
)

// Item is one stock keeping unit.
type Item struct {
	SKU       string
	Name      string
	Available int
	Reserved  int
}

// Store persists stock levels.
type Store interface {
	Load(ctx context.Context, sku string) (Item, error)
	Save(ctx context.Context, item Item) error
}

// Ledger tracks reservations in memory and writes through to a Store.
type Ledger[K comparable] struct {
	mu    sync.Mutex
	store Store
	holds map[K]time.Time
}

// NewLedger returns an empty ledger over store.
func NewLedger[K comparable](store Store) *Ledger[K] {
	return &Ledger[K]{store: store, holds: map[K]time.Time{}}
}

// Reserve takes quantity items of sku out of the available stock and
// records a hold that expires after DefaultTTL.
func (l *Ledger[K]) Reserve(ctx context.Context, key K, sku string, quantity int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	item, err := l.store.Load(ctx, sku)
	if err != nil {
		return fmt.Errorf("reserve %s: %w", sku, err)
	}
	if item.Available < quantity {
		return fmt.Errorf("reserve %d of %s: %w", quantity, sku, ErrOutOfStock)
	}
	item.Available -= quantity
	item.Reserved += quantity
	if err := l.store.Save(ctx, item); err != nil {
		return fmt.Errorf("reserve %s: %w", sku, err)
	}
	l.holds[key] = time.Now().Add(DefaultTTL)
	return nil
}

// Reconcile walks every hold, releases the expired ones and reports how
// many items went back into stock. It is long on purpose: the chunker
// has to split it along its statements.
func (l *Ledger[K]) Reconcile(ctx context.Context, skus map[K]string, now time.Time) (released int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var expired []K
	for key, until := range l.holds {
		if now.After(until) {
			expired = append(expired, key)
		}
	}
	if len(expired) == 0 {
		return 0, nil
	}
	if len(expired) > maxBatch {
		expired = expired[:maxBatch]
	}
	// step 1: release the holds of batch 1 and write the stock back
	for _, key := range expired {
		sku, ok := skus[key]
		if !ok {
			delete(l.holds, key)
			continue
		}
		item, err := l.store.Load(ctx, sku)
		if err != nil {
			return released, fmt.Errorf("reconcile step 1 %s: %w", sku, err)
		}
		item.Available += item.Reserved
		released += item.Reserved
		item.Reserved = 0
		if err := l.store.Save(ctx, item); err != nil {
			return released, fmt.Errorf("reconcile step 1 save %s: %w", sku, err)
		}
	}
	// step 2: release the holds of batch 2 and write the stock back
	for _, key := range expired {
		sku, ok := skus[key]
		if !ok {
			delete(l.holds, key)
			continue
		}
		item, err := l.store.Load(ctx, sku)
		if err != nil {
			return released, fmt.Errorf("reconcile step 2 %s: %w", sku, err)
		}
		item.Available += item.Reserved
		released += item.Reserved
		item.Reserved = 0
		if err := l.store.Save(ctx, item); err != nil {
			return released, fmt.Errorf("reconcile step 2 save %s: %w", sku, err)
		}
	}
	// step 3: release the holds of batch 3 and write the stock back
	for _, key := range expired {
		sku, ok := skus[key]
		if !ok {
			delete(l.holds, key)
			continue
		}
		item, err := l.store.Load(ctx, sku)
		if err != nil {
			return released, fmt.Errorf("reconcile step 3 %s: %w", sku, err)
		}
		item.Available += item.Reserved
		released += item.Reserved
		item.Reserved = 0
		if err := l.store.Save(ctx, item); err != nil {
			return released, fmt.Errorf("reconcile step 3 save %s: %w", sku, err)
		}
	}
	// step 4: release the holds of batch 4 and write the stock back
	for _, key := range expired {
		sku, ok := skus[key]
		if !ok {
			delete(l.holds, key)
			continue
		}
		item, err := l.store.Load(ctx, sku)
		if err != nil {
			return released, fmt.Errorf("reconcile step 4 %s: %w", sku, err)
		}
		item.Available += item.Reserved
		released += item.Reserved
		item.Reserved = 0
		if err := l.store.Save(ctx, item); err != nil {
			return released, fmt.Errorf("reconcile step 4 save %s: %w", sku, err)
		}
	}
	// step 5: release the holds of batch 5 and write the stock back
	for _, key := range expired {
		sku, ok := skus[key]
		if !ok {
			delete(l.holds, key)
			continue
		}
		item, err := l.store.Load(ctx, sku)
		if err != nil {
			return released, fmt.Errorf("reconcile step 5 %s: %w", sku, err)
		}
		item.Available += item.Reserved
		released += item.Reserved
		item.Reserved = 0
		if err := l.store.Save(ctx, item); err != nil {
			return released, fmt.Errorf("reconcile step 5 save %s: %w", sku, err)
		}
	}
	for _, key := range expired {
		delete(l.holds, key)
	}
	return released, nil
}

func (l *Ledger[K]) Len() int { return len(l.holds) }
