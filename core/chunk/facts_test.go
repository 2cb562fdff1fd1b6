package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

// renderFacts prints the calls, routes and mounts of a file.
func renderFacts(res Result) string {
	var b strings.Builder
	for _, c := range res.Chunks {
		for _, cl := range c.Calls {
			fmt.Fprintf(&b, "call  %3d %-9s %-12s %-6s %q origin=%s", cl.Line, cl.Kind, cl.System, cl.Method, cl.Target, cl.Origin)
			for _, kv := range [][2]string{{"base", cl.Base}, {"env", cl.Env}, {"config", cl.Config}, {"default", cl.Default}, {"client", cl.Client}} {
				if kv[1] != "" {
					fmt.Fprintf(&b, " %s=%s", kv[0], kv[1])
				}
			}
			b.WriteByte('\n')
		}
		for _, r := range c.Routes {
			fmt.Fprintf(&b, "route %3d %-7s %-32s %-14s handler=%s router=%s\n", r.Line, r.Method, r.Path, r.Framework, r.Handler, r.Router)
		}
		for _, bd := range c.Bindings {
			switch bd.Kind {
			case BindEnv:
				fmt.Fprintf(&b, "env   %3d %-20s default=%q field=%s\n", bd.Line, bd.Env, bd.Default, bd.Field)
			case core.BindAddress:
				fmt.Fprintf(&b, "addr  %3d %q field=%s\n", bd.Line, bd.Value, bd.Field)
			case "field":
				switch {
				case bd.Param != "" && c.Language != "go": // a constructor's parameter; Go's fields have tests of their own
					fmt.Fprintf(&b, "field %3d %s.%s = parameter %d (%s) of %s\n", bd.Line, bd.Type, bd.Field, bd.Index, bd.Param, bd.Func)
				case c.Language == "java" || c.Language == "kotlin": // Spring's @Value
					fmt.Fprintf(&b, "field %3d %s.%s origin=%s value=%q config=%s default=%q\n", bd.Line, bd.Type, bd.Field, bd.Origin, bd.Value, bd.Config, bd.Default)
				}
			case "arg":
				if c.Language != "go" {
					fmt.Fprintf(&b, "arg   %3d %s(#%d) %s origin=%s value=%q env=%s\n", bd.Line, bd.Func, bd.Index, bd.Expr, bd.Origin, bd.Value, bd.Env)
				}
			}
		}
	}
	for _, m := range res.Mounts {
		fmt.Fprintf(&b, "mount %3d %s %s into %s from %q\n", m.Line, m.Prefix, m.Router, m.Into, m.From)
	}
	return b.String()
}

// TestFactsGolden extracts calls and routes from one fixture per language
// covering the frameworks and libraries coderag knows, and compares them
// with testdata/facts/*.golden.
func TestFactsGolden(t *testing.T) {
	c := newChunker(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "facts", "*"))
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res := chunkFile(t, c, filepath.Base(f), src)
			if res.Fallback != "" || res.ErrorBytes > 0 {
				t.Errorf("fixture does not parse cleanly: %q, %d error bytes", res.Fallback, res.ErrorBytes)
			}
			checkInvariants(t, string(src), res.Chunks)
			got := renderFacts(res)
			golden := f + ".golden"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("facts of %s (-want +got):\n%s", f, d)
			}
		})
	}
	if n < 5 {
		t.Errorf("%d fixtures, want one per language", n)
	}
}

func TestGatewayPath(t *testing.T) {
	for in, want := range map[string]string{
		"/v1/{name=shelves/*/books/*}": "/v1/shelves/{name}/books/{name}",
		"/v1/{name=memos/*}:archive":   "/v1/memos/{name}",
		"/v1/orders/{order_id}/cancel": "/v1/orders/{order_id}/cancel",
		"/v1/{parent=users/*}/memos":   "/v1/users/{parent}/memos",
		"/v1/files/{path=**}":          "/v1/files/{path...}",
		"/v1/{memo.name=memos/*}":      "/v1/memos/{memo.name}",
		"/v1/broken/{name":             "/v1/broken/{name",
	} {
		if got := gatewayPath(in); got != want {
			t.Errorf("gatewayPath(%q) = %q, want %q", in, got, want)
		}
	}
}
