package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callAll lists the tools of an MCP session and calls each on the sample,
// checking what each returns.
func callAll(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("tool %s has no description or input schema", tl.Name)
		}
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "blast_radius context explain_hit graph_service path_between search stats" {
		t.Fatalf("tools = %s", got)
	}
	call := func(name string, args map[string]any) (string, map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if res.IsError {
			return text.String(), nil
		}
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		return text.String(), out
	}
	_, out := call("search", map[string]any{"query": "RedisConnectionException", "limit": 3})
	hits, _ := out["hits"].([]any)
	if len(hits) == 0 {
		t.Fatalf("search found nothing: %v", out)
	}
	first := hits[0].(map[string]any)
	if first["chunk_id"] == "" || first["file_path"] == "" {
		t.Errorf("search hit = %v", first)
	}
	// k, the HTTP API's name, is the same as limit.
	if _, out := call("search", map[string]any{"query": "redis", "k": 2}); len(out["hits"].([]any)) != 2 {
		t.Errorf("search with k 2: %d hits", len(out["hits"].([]any)))
	}
	text, out := call("context", map[string]any{"query": "what breaks when redis is down", "budget": 3000})
	if !strings.Contains(text, "<codeRag:chunk>") || !strings.Contains(text, "blast radius") || out["used_tokens"].(float64) > 3000 {
		t.Errorf("context = %v\n%s", out, text)
	}
	if _, out := call("graph_service", map[string]any{"name": "cart"}); out["kind"] != "service" || len(out["upstream"].([]any)) == 0 {
		t.Errorf("graph_service cart = %v", out)
	}
	if _, out := call("blast_radius", map[string]any{"service": "redis"}); !strings.Contains(jsonText(out), `"service":"cart"`) {
		t.Errorf("blast_radius redis = %v", out)
	}
	if _, out := call("path_between", map[string]any{"from": "storefront", "to": "redis"}); !strings.Contains(jsonText(out), `"service":"redis"`) {
		t.Errorf("path_between storefront redis = %v", out)
	}
	if _, out := call("explain_hit", map[string]any{"query": "RedisConnectionException", "chunk_id": first["chunk_id"]}); out["rank"].(float64) != 1 {
		t.Errorf("explain_hit = %v", out)
	}
	if _, out := call("stats", map[string]any{}); out["chunks"].(float64) == 0 || out["services"].(float64) == 0 {
		t.Errorf("stats = %v", out)
	}
	if text, out := call("graph_service", map[string]any{"name": "kart"}); out != nil || !strings.Contains(text, "cart") {
		t.Errorf("an unknown service: %q %v, want an error suggesting cart", text, out)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "coderag://chunk/" + first["chunk_id"].(string)})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "RedisConnectionException") {
		t.Errorf("read chunk resource: %v %+v", err, res)
	}
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "coderag://file/platform/services/cart/Controllers/CartController.cs?lines=27-28"})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "27\t    [HttpGet(\"{userId}\")]\n28\t    public async Task<ActionResult<ShoppingCart>> GetCart(string userId)\n" {
		t.Errorf("read file slice: %v %+v", err, res)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "coderag://file/platform/../../etc/passwd"}); err == nil {
		t.Error("a path outside the index was read")
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMCPInMemory serves the sample over the SDK's in-memory transport.
func TestMCPInMemory(t *testing.T) {
	ctx := context.Background()
	db := crawlSample(t)
	srv, closeFn, err := newMCPServer(ctx, db, &embedFlags{}, &rerankFlags{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callAll(t, ctx, cs)
}

// TestMCPStdio runs the real binary as an MCP server on stdin/stdout, as
// an agent or editor would.
func TestMCPStdio(t *testing.T) {
	ctx := context.Background()
	db := crawlSample(t)
	cmd := exec.Command(os.Args[0], "mcp", "--db", db)
	cmd.Env = append(os.Environ(), "CODERAG_AS_BINARY=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callAll(t, ctx, cs)
}

// TestMCPStdioOneShotPipe: a client that writes its requests and closes
// stdin at once (echo ... | coderag mcp) still gets an answer to each.
func TestMCPStdioOneShotPipe(t *testing.T) {
	db := crawlSample(t)
	cmd := exec.Command(os.Args[0], "mcp", "--db", db)
	cmd.Env = append(os.Environ(), "CODERAG_AS_BINARY=1")
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"redis cart"}}}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("coderag mcp: %v", err)
	}
	ids := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
			t.Errorf("not a result: %q (%v)", line, err)
			continue
		}
		ids[m.ID] = true
	}
	if !ids[1] || !ids[2] || !ids[3] {
		t.Errorf("answers to %v, want 1, 2 and 3:\n%s", ids, out)
	}
}
