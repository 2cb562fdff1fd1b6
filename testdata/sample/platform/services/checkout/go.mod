module github.com/acme-outfitters/platform/services/checkout

go 1.22

require (
	github.com/jackc/pgx/v5 v5.5.5
	github.com/segmentio/kafka-go v0.4.47
)
