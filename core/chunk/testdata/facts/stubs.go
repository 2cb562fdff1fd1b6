// Package notify sends notices through generated gRPC clients, and signs
// download links with an S3 client whose constructor is named like one;
// the search client is plain HTTP, in a file that imports gRPC too.
package notify

import (
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"google.golang.org/grpc"

	"example.com/notify/internal/searchclient"

	notifypb "example.com/notify/gen/notify"
	"example.com/notify/internal/proto/auditproto"
)

type grpcConn interface{}

// clients builds the service's clients from its connection.
func clients(conn grpcConn, client *s3.Client) {
	_ = notifypb.NewNotifierClient(conn)
	_ = auditproto.NewAuditClient(conn)
	_ = s3.NewPresignClient(client)
}

// search signs requests to the search cluster.
func search(cfg searchclient.Signing) {
	_, _ = searchclient.NewSignedHttpClient(cfg)
	_ = grpc.WithBlock()
}
