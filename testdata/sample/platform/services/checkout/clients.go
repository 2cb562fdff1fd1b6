package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// CartItem is one line of a cart as the cart service returns it.
type CartItem struct {
	ProductID string `json:"productId"`
	Quantity  int    `json:"quantity"`
	PriceCent int64  `json:"priceCents"`
}

// Cart is the cart service's view of a user's cart.
type Cart struct {
	UserID string     `json:"userId"`
	Items  []CartItem `json:"items"`
}

// Total is the cart's value in cents.
func (c Cart) Total() int64 {
	var t int64
	for _, it := range c.Items {
		t += it.PriceCent * int64(it.Quantity)
	}
	return t
}

// CartClient talks to the cart service (C#, services/cart).
type CartClient struct {
	base string
	http *http.Client
}

// NewCartClient returns a client for the cart service at base, e.g.
// http://cart:8080 from CART_SERVICE_ADDR.
func NewCartClient(base string) *CartClient {
	return &CartClient{base: base, http: &http.Client{Timeout: 3 * time.Second}}
}

// GetCart loads the cart of a user: GET /api/cart/{userId}.
func (c *CartClient) GetCart(ctx context.Context, userID string) (Cart, error) {
	var cart Cart
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/api/cart/"+url.PathEscape(userID), nil)
	if err != nil {
		return cart, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return cart, fmt.Errorf("get cart %s: %w", userID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return cart, fmt.Errorf("get cart %s: cart service answered %s", userID, resp.Status)
	}
	return cart, json.NewDecoder(resp.Body).Decode(&cart)
}

// ClearCart empties the cart after an order: DELETE /api/cart/{userId}.
func (c *CartClient) ClearCart(ctx context.Context, userID string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.base+"/api/cart/"+url.PathEscape(userID), nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("clear cart %s: %w", userID, err)
	}
	resp.Body.Close()
	return nil
}

// Profile is the part of an account checkout needs.
type Profile struct {
	UserID          string `json:"user_id"`
	DisplayName     string `json:"display_name"`
	ShippingAddress string `json:"shipping_address"`
}

// AccountsClient talks to the accounts service (Python, services/accounts).
type AccountsClient struct {
	base string
	http *http.Client
}

// NewAccountsClient returns a client for the accounts service at base.
func NewAccountsClient(base string) *AccountsClient {
	return &AccountsClient{base: base, http: &http.Client{Timeout: 2 * time.Second}}
}

// Profile loads a user's profile: GET /users/{user_id}/profile.
func (c *AccountsClient) Profile(ctx context.Context, userID string) (Profile, error) {
	var p Profile
	endpoint := fmt.Sprintf("%s/users/%s/profile", c.base, url.PathEscape(userID))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return p, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return p, fmt.Errorf("get profile %s: %w", userID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return p, fmt.Errorf("get profile %s: accounts answered %s", userID, resp.Status)
	}
	return p, json.NewDecoder(resp.Body).Decode(&p)
}

// ErrCardDeclined means the payment provider refused the charge.
var ErrCardDeclined = errors.New("card declined")

// Charge is a successful card charge.
type Charge struct {
	ID     string `json:"id"`
	Amount int64  `json:"amount"`
}

// PaymentsClient calls the external payment provider.
type PaymentsClient struct {
	base, apiKey string
	http         *http.Client
}

// NewPaymentsClient returns a client for the provider at base.
func NewPaymentsClient(base, apiKey string) *PaymentsClient {
	return &PaymentsClient{base: base, apiKey: apiKey, http: &http.Client{Timeout: 10 * time.Second}}
}

// Charge charges amount cents to the card behind token: POST /v1/charges.
func (c *PaymentsClient) Charge(ctx context.Context, token string, amount int64, currency string) (Charge, error) {
	var ch Charge
	body, _ := json.Marshal(map[string]any{"amount": amount, "currency": currency, "source": token})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/charges", bytes.NewReader(body))
	if err != nil {
		return ch, err
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return ch, fmt.Errorf("charge: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusPaymentRequired {
		return ch, ErrCardDeclined
	}
	if resp.StatusCode >= 300 {
		return ch, fmt.Errorf("charge: provider answered %s", resp.Status)
	}
	return ch, json.NewDecoder(resp.Body).Decode(&ch)
}
