package graph

import "testing"

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
