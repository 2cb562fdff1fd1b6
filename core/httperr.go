package core

import (
	"encoding/json"
	"strings"
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
