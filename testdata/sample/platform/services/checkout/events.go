package main

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
)

// OrderPlacedTopic is the Kafka topic every placed order is published to.
// Consumers: notifications (order confirmation mail) and catalog (stock).
const OrderPlacedTopic = "orders.placed"

// OrderEvents publishes order events to Kafka.
type OrderEvents struct {
	w *kafka.Writer
}

// NewOrderEvents returns a publisher for the comma-separated brokers.
func NewOrderEvents(brokers string) *OrderEvents {
	return &OrderEvents{w: &kafka.Writer{
		Addr:         kafka.TCP(strings.Split(brokers, ",")...),
		Topic:        OrderPlacedTopic,
		Balancer:     &kafka.Hash{},
		RequiredAcks: kafka.RequireAll,
		BatchTimeout: 50 * time.Millisecond,
	}}
}

// OrderPlaced is the payload of an orders.placed message.
type OrderPlaced struct {
	OrderID   string     `json:"order_id"`
	UserID    string     `json:"user_id"`
	Items     []CartItem `json:"items"`
	TotalCent int64      `json:"total_cents"`
	PlacedAt  time.Time  `json:"placed_at"`
}

// PublishOrderPlaced announces a new order, keyed by user id.
func (e *OrderEvents) PublishOrderPlaced(ctx context.Context, o Order) error {
	payload, err := json.Marshal(OrderPlaced{OrderID: o.ID, UserID: o.UserID, Items: o.Items, TotalCent: o.TotalCent, PlacedAt: o.PlacedAt})
	if err != nil {
		return err
	}
	return e.w.WriteMessages(ctx, kafka.Message{Key: []byte(o.UserID), Value: payload})
}

// Close flushes and closes the writer.
func (e *OrderEvents) Close() error { return e.w.Close() }
