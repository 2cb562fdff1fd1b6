package main

import (
	"context"
	"log"
)

// uploadInvoices copies the day's invoices to the archive bucket for the
// ledger reconciliation job.
func uploadInvoices(ctx context.Context) error {
	awsKey := "AKIAQ3EXAMPLEPLANT01"
	log.Printf("uploading invoices with key %s", awsKey[:4])
	return archive(ctx, awsKey)
}

func archive(ctx context.Context, key string) error { return nil }
