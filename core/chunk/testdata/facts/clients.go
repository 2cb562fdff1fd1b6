// Package scalers reads queue lengths through client libraries whose
// constructors are named like gRPC stubs' but are not gRPC calls, and
// through one generated gRPC stub that is.
package scalers

import (
	"context"

	monitoring "cloud.google.com/go/monitoring/apiv3/v2"
	"cloud.google.com/go/monitoring/apiv3/v2/monitoringpb"
	"github.com/DataDog/datadog-api-client-go/v2/api/datadog"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"

	cartpb "example.com/shop/gen/cart/v1"
	"google.golang.org/api/option"
)

// clusterLength reads a list's length from a Redis cluster.
func clusterLength(ctx context.Context, addrs []string, key string) (int64, error) {
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	return c.LLen(ctx, key).Result()
}

// series is a time series query.
var series = &monitoringpb.ListTimeSeriesRequest{}

// metricsClient is a Google Cloud Monitoring client.
func metricsClient(ctx context.Context, creds []byte) (*monitoring.MetricClient, error) {
	return monitoring.NewMetricClient(ctx, option.WithCredentialsJSON(creds))
}

// defaultMetricsClient uses the default credentials.
func defaultMetricsClient(ctx context.Context) (*monitoring.MetricClient, error) {
	return monitoring.NewMetricClient(ctx)
}

// datadogClient is a Datadog API client.
func datadogClient() *datadog.APIClient {
	return datadog.NewAPIClient(datadog.NewConfiguration())
}

// cartClient talks to the cart service over gRPC.
func cartClient(conn *grpc.ClientConn) cartpb.CartServiceClient {
	return cartpb.NewCartServiceClient(conn)
}
