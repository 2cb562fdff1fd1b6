package inventory

import "testing"

// TestReserveMoreThanAvailable checks that a reservation beyond the stock fails.
func TestReserveMoreThanAvailable(t *testing.T) {
	s := NewStore()
	s.Restock("ber-1", "mug", 2)
	if err := s.Reserve("ber-1", "mug", 3); err != ErrOutOfStock {
		t.Fatalf("Reserve = %v, want ErrOutOfStock", err)
	}
}
