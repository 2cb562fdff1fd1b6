package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrOrderNotFound means no order has the requested id.
var ErrOrderNotFound = errors.New("order not found")

// Order is a placed order, stored in the orders table of shopdb.
type Order struct {
	ID        string     `json:"id"`
	UserID    string     `json:"user_id"`
	Items     []CartItem `json:"items"`
	TotalCent int64      `json:"total_cents"`
	ChargeID  string     `json:"charge_id"`
	ShipTo    string     `json:"ship_to"`
	PlacedAt  time.Time  `json:"placed_at"`
}

// OrderStore reads and writes orders in the shared Postgres database shopdb.
type OrderStore struct {
	db *sql.DB
}

// Insert stores a new order and sets its id.
func (s *OrderStore) Insert(ctx context.Context, o *Order) error {
	items, err := json.Marshal(o.Items)
	if err != nil {
		return err
	}
	row := s.db.QueryRowContext(ctx, `
		INSERT INTO orders (user_id, items, total_cents, charge_id, ship_to, placed_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		RETURNING id`, o.UserID, items, o.TotalCent, o.ChargeID, o.ShipTo, o.PlacedAt)
	if err := row.Scan(&o.ID); err != nil {
		return fmt.Errorf("insert order for %s: %w", o.UserID, err)
	}
	return nil
}

// Get loads one order.
func (s *OrderStore) Get(ctx context.Context, id string) (Order, error) {
	var o Order
	var items []byte
	err := s.db.QueryRowContext(ctx, `
		SELECT id, user_id, items, total_cents, charge_id, ship_to, placed_at
		FROM orders WHERE id = $1`, id).Scan(&o.ID, &o.UserID, &items, &o.TotalCent, &o.ChargeID, &o.ShipTo, &o.PlacedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return o, ErrOrderNotFound
	}
	if err != nil {
		return o, fmt.Errorf("get order %s: %w", id, err)
	}
	return o, json.Unmarshal(items, &o.Items)
}
