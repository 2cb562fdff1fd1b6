package quotes

import (
	"context"
	"fmt"
	"net/http"
	"os"
)

// Client calls the pricing service.
type Client struct {
	base string
	hc   *http.Client
}

// NewClient reads the pricing service's address from the environment.
func NewClient() *Client {
	return &Client{base: os.Getenv("PRICING_URL"), hc: http.DefaultClient}
}

func (c *Client) do(ctx context.Context, method, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("pricing %s %s: %w", method, path, err)
	}
	return c.hc.Do(req)
}

// Quote asks for one product's price.
func (c *Client) Quote(ctx context.Context, sku string) (*http.Response, error) {
	return c.do(ctx, http.MethodGet, "/quotes/"+sku)
}

// Expire drops a quote.
func (c *Client) Expire(ctx context.Context, id string) error {
	_, err := c.do(ctx, "DELETE", fmt.Sprintf("/quotes/%s", id))
	return err
}

func probe(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Ready probes the given address; the address is the caller's.
func Ready(addr string) error { return probe(addr) }

// Reprice recomputes a quote.
func (c *Client) Reprice(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodPost, "/quotes/"+id+"/reprice")
	return err
}
