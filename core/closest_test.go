package core

import (
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	names := []string{"cart", "checkout", "catalog", "payments", "payments-api", "frontend", "orders-repo-server"}
	for _, tt := range []struct {
		in   string
		want string
	}{
		{"crat", "cart"},
		{"chekout", "checkout"},
		{"payment", "payments payments-api"},
		{"front", "frontend"},
		{"zzzzzz", ""},
		{"CART", "cart"},
		{"repo server", "orders-repo-server"},
		{"Payments API", "payments-api payments"},
		{"orders_repo_server", "orders-repo-server"},
	} {
		if got := strings.Join(Closest(tt.in, names, 3), " "); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
