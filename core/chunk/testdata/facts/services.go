package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"

	"github.com/IBM/sarama"
	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/gorilla/mux"
	"github.com/nats-io/nats.go"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"

	pb "example.com/shop/gen/inventory"
)

const inventoryAddr = "inventory:50051"

var pricingURL = os.Getenv("PRICING_URL")

func routes() {
	r := chi.NewRouter()
	r.Get("/orders/{id}", getOrder)
	r.Route("/admin", func(r chi.Router) {
		r.Post("/refunds", refund)
	})
	r.Method("PUT", "/orders/{id}/status", setStatus)

	g := gin.Default()
	v1 := g.Group("/v1")
	v1.GET("/items/:sku", getItem)
	v1.GET("", listItems)
	g.GET("/admin/stats", requireAdmin(), adminStats)
	v1.Group("/users").Use(requireAdmin()).POST("", createUser)
	g.Match([]string{http.MethodGet, "HEAD"}, "/healthz", health)
	g.GET("version", version)

	m := mux.NewRouter()
	m.HandleFunc("/legacy/orders", listOrders).Methods("GET", "HEAD")
	api := m.PathPrefix("/api/v2").Subrouter()
	api.HandleFunc("/refunds/{id:[0-9]+}", getRefund).Name("refund").Methods(http.MethodGet)

	s := grpc.NewServer()
	pb.RegisterInventoryServiceServer(s, &inventoryServer{})
}

func clients(ctx context.Context, sku string) error {
	resp, err := http.Get(pricingURL + "/prices/" + sku)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	req, _ := http.NewRequest(http.MethodPatch, fmt.Sprintf("http://warehouse:8080/stock/%s", sku), nil)
	http.DefaultClient.Do(req)

	conn, _ := grpc.Dial(inventoryAddr, grpc.WithInsecure())
	inv := pb.NewInventoryServiceClient(conn)
	_ = inv
	pconn, _ := grpc.DialContext(ctx, //nolint:staticcheck
		"pricing:50051", grpc.WithInsecure())
	_ = pconn

	nc, _ := nats.Connect(nats.DefaultURL)
	nc.Publish("stock.reserved", []byte(sku))
	nc.Subscribe("stock.released", func(m *nats.Msg) {})

	producer.SendMessage(&sarama.ProducerMessage{Topic: "audit.events", Value: sarama.StringEncoder(sku)})

	rdb := redis.NewClient(&redis.Options{Addr: "cache:6379"})
	_ = rdb
	db, _ := sql.Open("mysql", os.Getenv("ORDERS_DSN"))
	_ = db
	return nil
}
