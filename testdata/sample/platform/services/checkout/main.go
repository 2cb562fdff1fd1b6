// Command checkout serves the checkout API of Acme Outfitters: it turns a
// user's cart into an order, charges the card, and announces the order on
// the orders.placed topic.
package main

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// Config is read from the environment; see deploy/k8s/checkout.yaml.
type Config struct {
	Addr            string
	DatabaseURL     string
	CartServiceAddr string
	AccountsURL     string
	PaymentsAPIURL  string
	KafkaBrokers    string
}

func configFromEnv() Config {
	return Config{
		Addr:            envOr("CHECKOUT_ADDR", ":8080"),
		DatabaseURL:     os.Getenv("DATABASE_URL"),
		CartServiceAddr: envOr("CART_SERVICE_ADDR", "http://cart:8080"),
		AccountsURL:     envOr("ACCOUNTS_URL", "http://accounts:5000"),
		PaymentsAPIURL:  envOr("PAYMENTS_API_URL", "https://api.stripe.com"),
		KafkaBrokers:    envOr("KAFKA_BROKERS", "kafka:9092"),
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func main() {
	cfg := configFromEnv()
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))

	db, err := sql.Open("pgx", cfg.DatabaseURL)
	if err != nil {
		log.Error("open shopdb", "err", err)
		os.Exit(1)
	}
	defer db.Close()

	srv := &Server{
		orders:   &OrderStore{db: db},
		cart:     NewCartClient(cfg.CartServiceAddr),
		accounts: NewAccountsClient(cfg.AccountsURL),
		payments: NewPaymentsClient(cfg.PaymentsAPIURL, os.Getenv("PAYMENTS_API_KEY")),
		events:   NewOrderEvents(cfg.KafkaBrokers),
		log:      log,
	}
	defer srv.events.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/checkout", srv.handleCheckout)
	mux.HandleFunc("GET /v1/orders/{id}", srv.handleGetOrder)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := db.PingContext(r.Context()); err != nil {
			http.Error(w, "shopdb unreachable", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})

	httpSrv := &http.Server{Addr: cfg.Addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		httpSrv.Shutdown(shutdown)
	}()
	log.Info("checkout listening", "addr", cfg.Addr)
	if err := httpSrv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("serve", "err", err)
		os.Exit(1)
	}
}
