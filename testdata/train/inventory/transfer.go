package inventory

// Transfer moves units of a product between two warehouses when the
// source has them to spare.
func (s *Store) Transfer(from, to, sku string, units int) error {
	if err := s.Reserve(from, sku, units); err != nil {
		return err
	}
	s.mu.Lock()
	s.levels[from+"/"+sku] -= units
	s.reserved[from+"/"+sku] -= units
	s.levels[to+"/"+sku] += units
	s.mu.Unlock()
	return nil
}

// LowStock lists the products whose free units fell under the threshold.
func (s *Store) LowStock(warehouse string, threshold int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for key, n := range s.levels {
		if len(key) > len(warehouse) && key[:len(warehouse)+1] == warehouse+"/" && n-s.reserved[key] < threshold {
			out = append(out, key[len(warehouse)+1:])
		}
	}
	return out
}
