package main

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Server holds the dependencies of the checkout handlers.
type Server struct {
	orders   *OrderStore
	cart     *CartClient
	accounts *AccountsClient
	payments *PaymentsClient
	events   *OrderEvents
	log      *slog.Logger
}

// CheckoutRequest is the body of POST /v1/checkout.
type CheckoutRequest struct {
	UserID       string `json:"user_id"`
	PaymentToken string `json:"payment_token"`
}

// handleCheckout places an order for everything in the user's cart:
// load the cart, look up the shipping address, charge the card, store the
// order, empty the cart and publish orders.placed.
func (s *Server) handleCheckout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var req CheckoutRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.UserID == "" {
		http.Error(w, "body must be {user_id, payment_token}", http.StatusBadRequest)
		return
	}

	cart, err := s.cart.GetCart(ctx, req.UserID)
	if err != nil {
		s.log.Error("load cart", "user", req.UserID, "err", err)
		http.Error(w, "cart service unavailable", http.StatusBadGateway)
		return
	}
	if len(cart.Items) == 0 {
		http.Error(w, "cart is empty", http.StatusConflict)
		return
	}

	profile, err := s.accounts.Profile(ctx, req.UserID)
	if err != nil {
		s.log.Error("load profile", "user", req.UserID, "err", err)
		http.Error(w, "accounts service unavailable", http.StatusBadGateway)
		return
	}

	total := cart.Total()
	charge, err := s.payments.Charge(ctx, req.PaymentToken, total, "usd")
	if errors.Is(err, ErrCardDeclined) {
		http.Error(w, "card declined", http.StatusPaymentRequired)
		return
	}
	if err != nil {
		s.log.Error("charge", "user", req.UserID, "err", err)
		http.Error(w, "payment provider unavailable", http.StatusBadGateway)
		return
	}

	order := Order{
		UserID:    req.UserID,
		Items:     cart.Items,
		TotalCent: total,
		ChargeID:  charge.ID,
		ShipTo:    profile.ShippingAddress,
		PlacedAt:  time.Now().UTC(),
	}
	if err := s.orders.Insert(ctx, &order); err != nil {
		s.log.Error("insert order", "err", err)
		http.Error(w, "could not store order", http.StatusInternalServerError)
		return
	}
	if err := s.cart.ClearCart(ctx, req.UserID); err != nil {
		s.log.Warn("clear cart", "user", req.UserID, "err", err)
	}
	if err := s.events.PublishOrderPlaced(ctx, order); err != nil {
		s.log.Error("publish orders.placed", "order", order.ID, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(order)
}

// handleGetOrder returns one order by id.
func (s *Server) handleGetOrder(w http.ResponseWriter, r *http.Request) {
	order, err := s.orders.Get(r.Context(), r.PathValue("id"))
	if errors.Is(err, ErrOrderNotFound) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(order)
}
