package graph

import (
	"slices"
	"testing"
)

func TestImageKind(t *testing.T) {
	tests := []struct {
		image, want string
	}{
		{"postgres:16", KindDatabase},
		{"scylladb/scylla:5.4", KindDatabase},
		{"couchbase:enterprise-7.6.2", KindDatabase},
		{"yugabytedb/yugabyte:2.20.1.0-b97", KindDatabase},
		{"amazon/dynamodb-local:2.5.2", KindDatabase},
		{"bitnami/redis:7.2", KindCache},
		{"hazelcast/hazelcast:5.4", KindCache},
		{"eclipse-mosquitto:2.0", KindQueue},
		{"emqx/emqx:5.7.1", KindQueue},
		{"nsqio/nsq:v1.3.0", KindService}, // nsq's image runs nsqd, nsqlookupd or nsqadmin as told
		{"confluentinc/cp-kafka:7.6.1", KindQueue},
		{"ghcr.io/acme/fares:1.4", KindService},
	}
	for _, tt := range tests {
		if got := imageKind([]string{tt.image}); got != tt.want {
			t.Errorf("imageKind(%q) = %q, want %q", tt.image, got, tt.want)
		}
	}
}

// TestHostPorts: the ports of the machine a compose port mapping
// publishes, in each syntax compose accepts.
func TestHostPorts(t *testing.T) {
	for _, tc := range []struct {
		mapping string
		want    []string
	}{
		{"3306:3306", []string{"3306"}},
		{"8088:8080", []string{"8088"}},
		{"127.0.0.1:9200:9200", []string{"9200"}},
		{"53:53/udp", []string{"53"}},
		{"9000-9002:9000-9002", []string{"9000", "9001", "9002"}},
		{"8080", nil},            // a container port: the machine's is chosen at random
		{"1-65535:1-65535", nil}, // not a service's port
		{"${PORT}:80", nil},      // left uninterpolated
		{"", nil},
	} {
		if got := hostPorts(tc.mapping); !slices.Equal(got, tc.want) {
			t.Errorf("hostPorts(%q) = %v, want %v", tc.mapping, got, tc.want)
		}
	}
}
