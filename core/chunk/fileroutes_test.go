package chunk

import (
	"fmt"
	"strings"
	"testing"
)

// TestFileRoutes checks the routes file-system routers serve, by path and
// exports, and that files outside them serve none.
func TestFileRoutes(t *testing.T) {
	const handler = "export default function handler(req, res) { res.json({}) }\n"
	const app = "import { NextResponse } from 'next/server'\n\nexport async function GET() {}\nexport const POST = async () => {}\nconst del = () => {}\nexport { del as DELETE, helper }\n"
	for _, tt := range []struct {
		path, src string
		want      string
	}{
		{"pages/api/products/[id].ts", handler, "ANY /api/products/{id} nextjs default @1"},
		{"web/src/pages/api/index.js", handler, "ANY /api nextjs default @1"},
		{"pages/api/docs/[...slug].tsx", handler, "ANY /api/docs/{slug} nextjs default @1"},
		{"pages/api/opt/[[...slug]].ts", handler, "ANY /api/opt/{slug} nextjs default @1"},
		{"pages/about.tsx", handler, ""},
		{"src/app/(shop)/api/cart/[itemId]/route.ts", app, "GET /api/cart/{itemId} nextjs GET @3; POST /api/cart/{itemId} nextjs POST @4; DELETE /api/cart/{itemId} nextjs DELETE @6"},
		{"app/@modal/route.js", "export function GET() {}\n", "GET / nextjs GET @1"},
		{"app/page.tsx", app, ""},
		{"src/routes/api/items/[id=integer]/+server.ts", "export const GET = () => new Response()\n", "GET /api/items/{id} sveltekit GET @1"},
		{"server/api/orders/[orderId].get.ts", "export default defineEventHandler(() => ({}))\n", "GET /api/orders/{orderId} nitro default @1"},
		{"server/routes/health.ts", "export default defineEventHandler(() => 'ok')\n", "ANY /health nitro default @1"},
		{"src/lib/server/api.ts", handler, ""},
		// CommonJS modules under an Express app's server/api folder
		// export no handler: not file-system routes.
		{"core/server/api/endpoints/posts.js", "module.exports = {\n  browse: {}\n};\n", ""},
		{"server/api/health.ts", "import { helper } from './x'\nexport const ok = 1\n", ""},
		{"pages/api/legacy.js", "function handler(req, res) {}\n\nmodule.exports = handler\n", "ANY /api/legacy nextjs default @3"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			var got []string
			for _, f := range fileRoutes(tt.path, []byte(tt.src)) {
				r := f.route
				got = append(got, fmt.Sprintf("%s %s %s %s @%d", r.Method, r.Path, r.Framework, r.Handler, r.Line))
			}
			if g := strings.Join(got, "; "); g != tt.want {
				t.Errorf("routes = %q, want %q", g, tt.want)
			}
		})
	}
}
