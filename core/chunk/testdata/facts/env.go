package main

import (
	"fmt"
	"os"
)

func getEnvVar(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return os.Getenv(fallback)
}

func brokerURL() string {
	host, ok := os.LookupEnv("BROKER_HOST")
	if !ok {
		host = "rabbit"
	}
	return fmt.Sprintf("amqp://guest:guest@%s:5672/", host)
}

func dbURI() string {
	return getEnvVar("ORDER_DB_URI", "ORDER_DB_HOST")
}

// Settings are read by configuration libraries from struct tags: the
// variable (env, envconfig, or the field's name) and its default.
type Settings struct {
	BrokerURL string `env:"BROKER_URL" envDefault:"nats://localhost:4222"`
	CacheAddr string `envconfig:"cache_addr" default:"127.0.0.1:6379"`
	Region    string `default:"eu-west-1"`
	Timeout   int    `env:"TIMEOUT"`
	Name      string `json:"name"`
}
