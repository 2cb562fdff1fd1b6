//go:build ignore

// gen_tables downloads the currency table and writes currencies.go: run
// by go generate, never built into the service.
package main

import (
	"io"
	"net/http"
	"os"
)

func main() {
	resp, err := http.Get("https://www.six-group.com/dam/download/financial-information/data-center/iso-currrency/lists/list-one.xml")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	out, _ := os.Create(os.Getenv("OUT_FILE"))
	io.Copy(out, resp.Body)
}
