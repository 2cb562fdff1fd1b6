package search

import (
	"reflect"
	"strings"
	"testing"

	"coderag/core"
)

func TestParseTrace(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []Frame
	}{
		{"python, innermost last", `Traceback (most recent call last):
  File "/srv/app/.venv/lib/python3.11/site-packages/flask/app.py", line 1484, in full_handle_request
    rv = self.handle_request()
  File "/srv/app/orders/views.py", line 42, in checkout
    total = cart.total + fee
TypeError: unsupported operand type(s) for +: 'int' and 'str'`, []Frame{
			{"/srv/app/orders/views.py", 42, "checkout"},
			{"/srv/app/.venv/lib/python3.11/site-packages/flask/app.py", 1484, "full_handle_request"},
		}},
		{"python on windows", `File "C:\Users\dev\shop\orders\views.py", line 7, in <module>`, []Frame{
			{"C:/Users/dev/shop/orders/views.py", 7, "<module>"},
		}},
		{"go panic", `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x6a1b2c]

goroutine 23 [running]:
example.com/shop/cart.(*Store).Load(0x0, {0x8b6e40, 0xc000010030}, {0xc00001a0c0, 0x24})
	/app/cart/store.go:88 +0x3a
example.com/shop/cart.Handler.func1({0x8b9a20, 0xc0001b4000}, 0xc0001a2100)
	/app/cart/handler.go:31 +0x1d5
created by net/http.(*Server).Serve in goroutine 1
	/usr/local/go/src/net/http/server.go:3285 +0x4b4
exit status 2`, []Frame{
			{"/app/cart/store.go", 88, "example.com/shop/cart.(*Store).Load"},
			{"/app/cart/handler.go", 31, "example.com/shop/cart.Handler.func1"},
			{"/usr/local/go/src/net/http/server.go", 3285, "net/http.(*Server).Serve"},
		}},
		{"jvm with a module and a cause", `Exception in thread "main" java.lang.IllegalStateException: cart is closed
	at com.shop.cart.CartService.add(CartService.java:42)
	at java.base/java.util.ArrayList.forEach(ArrayList.java:1541)
Caused by: java.io.IOException: broken pipe
	at com.shop.cart.RedisStore.save(RedisStore.kt:17)
	... 3 more`, []Frame{
			{"com/shop/cart/CartService.java", 42, "com.shop.cart.CartService.add"},
			{"java/util/ArrayList.java", 1541, "java.util.ArrayList.forEach"},
			{"com/shop/cart/RedisStore.kt", 17, "com.shop.cart.RedisStore.save"},
		}},
		{"dotnet", `System.NullReferenceException: Object reference not set to an instance of an object.
   at Shop.Cart.CartService.Add(Int32 id) in /src/Cart/CartService.cs:line 42
   at Shop.Api.Program.<Main>$(String[] args) in C:\src\Api\Program.cs:line 12`, []Frame{
			{"/src/Cart/CartService.cs", 42, "Shop.Cart.CartService.Add"},
			{"C:/src/Api/Program.cs", 12, "Shop.Api.Program.<Main>$"},
		}},
		{"node", `TypeError: Cannot read properties of undefined (reading 'items')
    at CartService.total (/app/src/cart.js:42:13)
    at async Promise.all (index 0)
    at /app/src/routes/orders.js:31:17
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`, []Frame{
			{"/app/src/cart.js", 42, "CartService.total"},
			{"/app/src/routes/orders.js", 31, ""},
		}},
		{"php", `PHP Fatal error:  Uncaught Error: Call to a member function add() on null
#0 /var/www/src/Cart.php(42): Cart->add()
#1 /var/www/public/index.php(12): checkout()`, []Frame{
			{"/var/www/src/Cart.php", 42, "Cart->add"},
			{"/var/www/public/index.php", 12, "checkout"},
		}},
		{"ruby", "NoMethodError: undefined method `items' for nil\n/app/models/cart.rb:42:in 'total'\n/app/controllers/orders_controller.rb:9:in 'create'", []Frame{
			{"/app/models/cart.rb", 42, "total"},
			{"/app/controllers/orders_controller.rb", 9, "create"},
		}},
		{"rust panic", "thread 'main' panicked at src/store.rs:88:5:\ncalled `Option::unwrap()` on a `None` value", []Frame{
			{"src/store.rs", 88, ""},
		}},
		{"compilers and linters", "internal/cart/store.go:12:5: undefined: loadCart\nsrc/app.ts(7,3): error TS2304: Cannot find name 'total'.", []Frame{
			{"internal/cart/store.go", 12, ""},
			{"src/app.ts", 7, ""},
		}},
		{"a question about a line", "what is at server.go:42", []Frame{{"server.go", 42, ""}}},
		{"a trace whose lines were joined", `Exception in thread "main" java.lang.NullPointerException at com.shop.cart.CartService.add(CartService.java:42) at com.shop.Main.main(Main.java:9)`, []Frame{
			{"com/shop/cart/CartService.java", 42, "com.shop.cart.CartService.add"},
			{"com/shop/Main.java", 9, "com.shop.Main.main"},
		}},
		{"no frames in a question", "where does the cart retry the payment", nil},
		{"a URL with a port is no frame", "GET https://cdn.example.com/app.js:443 failed", nil},
		{"a version is no line", "upgrade to lodash.js 4.17.21", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseTrace(tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseTrace =\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

func TestTraceText(t *testing.T) {
	text := `goroutine 23 [running]:
example.com/shop/cart.(*Store).Load(0x0, {0x8b6e40, 0xc000010030})
	/app/cart/store.go:88 +0x3a`
	full := "panic: cart store closed\n" + text
	_, cuts := parseTrace(full)
	got := traceText(full, cuts)
	if got != "panic: cart store closed goroutine 23 [running]: Load" {
		t.Errorf("traceText = %q", got)
	}
}

func TestPathParts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/root/go/pkg/mod/github.com/redis/go-redis/v9@v9.23.0/redis.go", "root go pkg mod github.com redis go-redis v9 redis.go"},
		{"/app/node_modules/mongoose-8.9.5/lib/model.js", "app node_modules mongoose lib model.js"},
		{`C:\src\Api\Program.cs`, "C: src Api Program.cs"},
		{"./src/python3.11/x.py", "src python3.11 x.py"},
	} {
		if got := strings.Join(pathParts(tc.in), " "); got != tc.want {
			t.Errorf("pathParts(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestChunkAtFrame(t *testing.T) {
	chunk := func(sym string, from, to int) core.Hit {
		return core.Hit{Chunk: core.Chunk{ID: sym, SymbolName: sym, LineStart: from, LineEnd: to}}
	}
	near := []core.Hit{chunk("Cart", 1, 60), chunk("Load", 10, 30), chunk("Save", 32, 50), chunk("Close", 52, 58)}
	for _, tc := range []struct {
		name string
		line int
		fn   string
		want string
	}{
		{"the smallest chunk holding the line", 20, "", "Load"},
		{"it declares the function", 20, "load", "Load"},
		{"the file changed: the function's chunk nearby", 29, "save", "Save"},
		{"no chunk declares it: the line's", 40, "flush", "Save"},
		{"between chunks: the nearest", 31, "", "Cart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := chunkAtFrame(near, tc.line, tc.fn)
			if !ok || got.Chunk.SymbolName != tc.want {
				t.Errorf("chunkAtFrame(%d, %q) = %s, want %s", tc.line, tc.fn, got.Chunk.SymbolName, tc.want)
			}
		})
	}
	if _, ok := chunkAtFrame(nil, 3, ""); ok {
		t.Error("chunkAtFrame(no chunks) found one")
	}
}

// FuzzParseTrace: any text parses without panicking, and every frame has
// a path and a positive line.
func FuzzParseTrace(f *testing.F) {
	for _, s := range []string{
		"File \"/a/b.py\", line 3, in f",
		"main.main()\n\t/app/main.go:42 +0x1d",
		"at a.B.c(B.java:1)",
		"at x (/a.js:1:2)",
		"#0 /a.php(1): f()",
		"C:\\a\\b.cs(1,2): error",
		"https://h/a.js:443",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, fr := range ParseTrace(s) {
			if fr.Path == "" || fr.Line <= 0 {
				t.Fatalf("ParseTrace(%q) gave %+v", s, fr)
			}
		}
		_, cuts := parseTrace(s)
		_ = traceText(s, cuts)
	})
}
