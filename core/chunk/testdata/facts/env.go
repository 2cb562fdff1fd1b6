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
