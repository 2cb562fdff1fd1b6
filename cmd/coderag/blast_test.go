package main

import (
	"strings"
	"testing"
)

// TestBrokerBlastRadiusHoldsItsConsumers: when the broker is down, its
// consumers break as well as its publishers (a consumer's edge to the
// broker is a dependency of the consumer, not of the broker).
func TestBrokerBlastRadiusHoldsItsConsumers(t *testing.T) {
	db := crawlSample(t)
	code, out, stderr := coderag(t, "graph", "--db", db, "--service", "kafka", "--blast-radius", "--depth", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"checkout", "catalog", "notifications"} {
		if !strings.Contains(out, "  "+s+" ") {
			t.Errorf("blast radius of kafka misses %s:\n%s", s, out)
		}
	}
	code, out, _ = coderag(t, "graph", "--db", db, "--service", "kafka", "--downstream")
	if code != 0 || strings.Contains(out, "catalog") || strings.Contains(out, "notifications") {
		t.Errorf("kafka depends on its consumers:\n%s", out)
	}
}
