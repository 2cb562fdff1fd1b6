package core

import (
	"strings"

	"coderag/core/codetok"
)

// productPorts are the ports a database's, cache's or broker's clients
// connect to when an address names none, by the product named.
var productPorts = map[string]string{"cassandra": "9042", "scylla": "9042", "scylladb": "9042", "mysql": "3306",
	"mariadb": "3306", "postgres": "5432", "postgresql": "5432", "mongo": "27017", "mongodb": "27017", "redis": "6379",
	"valkey": "6379", "memcached": "11211", "elasticsearch": "9200", "opensearch": "9200", "kafka": "9092",
	"nats": "4222", "rabbitmq": "5672", "amqp": "5672", "cockroach": "26257", "cockroachdb": "26257", "neo4j": "7687"}

// ProductPort is the port a client of the product that a setting's name
// names connects to by default (persistence.cassandra.hosts: 9042,
// REDIS_HOST: 6379); "" when the name names none, or two of different
// ports.
func ProductPort(name string) string {
	port := ""
	for _, w := range codetok.Words(name) {
		if p, ok := productPorts[w]; ok {
			if port != "" && port != p {
				return ""
			}
			port = p
		}
	}
	return port
}

// LocalHost reports whether host is the machine itself (localhost,
// 127.0.0.1, ::1, 0.0.0.0, *.localhost) or Docker's name for the machine
// running a container (host.docker.internal).
func LocalHost(host string) bool {
	switch host {
	case "localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]", "host.docker.internal", "::":
		return true
	}
	return strings.HasSuffix(host, ".localhost")
}
