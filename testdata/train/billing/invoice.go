// Package billing issues invoices and applies refunds for paid orders.
package billing

import (
	"errors"
	"fmt"
	"time"
)

// ErrAlreadyPaid is returned when an invoice is paid twice.
var ErrAlreadyPaid = errors.New("invoice already paid")

// Invoice is what a customer owes for one order.
type Invoice struct {
	ID       string
	OrderID  string
	Cents    int64
	Currency string
	PaidAt   time.Time
	Refunds  []Refund
}

// Refund gives part of a paid invoice back to the customer.
type Refund struct {
	Cents  int64
	Reason string
}

// NewInvoice creates an unpaid invoice for an order in the given currency.
func NewInvoice(orderID string, cents int64, currency string) *Invoice {
	return &Invoice{ID: "inv-" + orderID, OrderID: orderID, Cents: cents, Currency: currency}
}

// MarkPaid records the moment the payment provider confirmed the charge.
func (i *Invoice) MarkPaid(at time.Time) error {
	if !i.PaidAt.IsZero() {
		return ErrAlreadyPaid
	}
	i.PaidAt = at
	return nil
}

// RefundTotal adds up every amount already given back on this invoice.
func (i *Invoice) RefundTotal() int64 {
	var sum int64
	for _, r := range i.Refunds {
		sum += r.Cents
	}
	return sum
}

// ApplyRefund gives money back unless it would exceed what was paid.
func (i *Invoice) ApplyRefund(cents int64, reason string) error {
	if i.PaidAt.IsZero() {
		return fmt.Errorf("refund %s: invoice not paid", i.ID)
	}
	if i.RefundTotal()+cents > i.Cents {
		return fmt.Errorf("refund %s: %d cents exceeds the balance", i.ID, cents)
	}
	i.Refunds = append(i.Refunds, Refund{Cents: cents, Reason: reason})
	return nil
}
