package chunk

import "testing"

func TestRailsInflections(t *testing.T) {
	for _, tt := range []struct{ singular, plural string }{
		{"order", "orders"}, {"status", "statuses"}, {"category", "categories"}, {"day", "days"},
		{"box", "boxes"}, {"batch", "batches"}, {"wish", "wishes"},
	} {
		if got := pluralize(tt.singular); got != tt.plural {
			t.Errorf("pluralize(%q) = %q, want %q", tt.singular, got, tt.plural)
		}
		if got := singularize(tt.plural); got != tt.singular {
			t.Errorf("singularize(%q) = %q, want %q", tt.plural, got, tt.singular)
		}
	}
}
