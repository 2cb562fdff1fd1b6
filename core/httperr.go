package core

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// ErrorText is the message of an error answer of an HTTP API: the "error" field of the
// usual JSON shapes, else the start of the body.
func ErrorText(data []byte) string {
	var e struct {
		Error any `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error != nil {
		switch v := e.Error.(type) {
		case string:
			return v
		case map[string]any:
			if m, ok := v["message"].(string); ok {
				return m
			}
		}
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// Retryable marks an error a retry may cure (a 429, a 5xx, no answer).
type Retryable struct{ Err error }

func (r Retryable) Error() string { return r.Err.Error() }
func (r Retryable) Unwrap() error { return r.Err }

// Retry calls call until it succeeds, fails with an error that is not
// Retryable, or has been retried retries times; between calls it waits
// backoff, doubling each time, or the wait the call asked for (a
// Retry-After). It returns call's last error, or ctx's.
func Retry(ctx context.Context, retries int, backoff time.Duration, call func() (retryAfter time.Duration, err error)) error {
	wait := backoff
	for attempt := 0; ; attempt++ {
		retryAfter, err := call()
		var re Retryable
		if err == nil || !errors.As(err, &re) || attempt >= retries {
			return err
		}
		d := wait
		if retryAfter > 0 {
			d = retryAfter
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
		wait *= 2
	}
}
