package main

import (
	"net/http"
	"os"
	"strings"
)

// Both requests go to the Dapr sidecar and name their app in the
// dapr-app-id header: which call goes to which app is not written in one
// place, so neither is rewritten.
func both() {
	base := os.Getenv("DAPR_HOST") + ":" + os.Getenv("DAPR_HTTP_PORT")
	a, _ := http.NewRequest("POST", base+"/orders", strings.NewReader("{}"))
	a.Header.Add("dapr-app-id", "order-processor")
	b, _ := http.NewRequest("GET", base+"/stock", nil)
	b.Header.Add("dapr-app-id", "inventory")
	http.DefaultClient.Do(a)
	http.DefaultClient.Do(b)
}
