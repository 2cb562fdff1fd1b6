package chunk

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

func TestNginxResource(t *testing.T) {
	tests := []struct {
		name string
		conf string
		want []core.Backend
	}{
		{"locations", `
server {
    listen 80;
    location / { root /usr/share/nginx/html; }
    location /api/orders {
        rewrite ^/api/orders(/.*)$ $1 break;
        proxy_pass http://orders:3000;
    }
    location /grpc/ { grpc_pass grpc://pricing:50051; }
}`, []core.Backend{{Host: "http", Path: "/api/orders", Service: "orders", Port: "3000", Line: 7},
			{Host: "grpc", Path: "/grpc/", Service: "pricing", Port: "50051", Line: 9}}},
		{"envsubst template and upstream", `
upstream accounts_pool {
    server ${ACCOUNTS_HOST}:9000;
    server accounts-2:9000;
}
server {
    location /api/books/ { proxy_pass http://${BOOKS_HOST}:8080/; }
    location /api/accounts/ { proxy_pass http://accounts_pool; }
}`, []core.Backend{{Host: "http", Path: "/api/books/", Service: "${BOOKS_HOST}", Port: "8080", Line: 7},
			{Host: "http", Path: "/api/accounts/", Service: "${ACCOUNTS_HOST}", Port: "9000", Line: 3},
			{Host: "http", Path: "/api/accounts/", Service: "accounts-2", Port: "9000", Line: 4}}},
		{"nginx variables and sockets are not hosts", `
server {
    location /a { proxy_pass http://$backend; }
    location /b { proxy_pass http://unix:/tmp/app.sock; }
    location /c { proxy_pass http://loans:7000$request_uri; }
    # location /d { proxy_pass http://commented:1; }
}`, []core.Backend{{Host: "http", Path: "/c", Service: "loans", Port: "7000", Line: 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !IsNginx([]byte(tt.conf)) {
				t.Fatal("not recognised as nginx")
			}
			r, ok := NginxResource([]byte(tt.conf), "gw/nginx.conf")
			if !ok {
				t.Fatal("no backends")
			}
			if d := cmp.Diff(tt.want, r.Backends); d != "" {
				t.Errorf("backends (-want +got):\n%s", d)
			}
		})
	}
	if IsNginx([]byte("server:\n  port: 80\n")) {
		t.Error("YAML taken for nginx")
	}
}

func TestDockerfileResource(t *testing.T) {
	src := `FROM golang:1.22 AS build
ENV CGO_ENABLED=0
RUN go build -o /app .

FROM alpine:3.19
ENV BOOKS_HOST=books \
    MEMBERS_HOST="members" \
    EMPTY=
ENV LEGACY_HOST legacy
CMD ["/app"]
`
	r, ok := DockerfileResource([]byte(src), "gateway/Dockerfile")
	if !ok {
		t.Fatal("no resource")
	}
	want := core.Resource{Kind: core.ResourceDockerfile, Name: "gateway", Images: []string{"alpine:3.19"}, Line: 5,
		Env: []core.EnvVar{{Name: "BOOKS_HOST", Value: "books", Line: 6}, {Name: "MEMBERS_HOST", Value: "members", Line: 7},
			{Name: "EMPTY", Line: 8}, {Name: "LEGACY_HOST", Value: "legacy", Line: 9}}}
	if d := cmp.Diff(want, r); d != "" {
		t.Errorf("resource (-want +got):\n%s", d)
	}
}

// TestDockerfileWorker: the final stage's ENTRYPOINT and CMD, in either
// form, say whether the image runs a Celery worker.
func TestDockerfileWorker(t *testing.T) {
	for _, tt := range []struct {
		src, want string
	}{
		{"FROM python:3.12\nCMD [\"celery\", \"-A\", \"tasks\", \"worker\", \"-l\", \"info\"]\n", "celery"},
		{"FROM python:3.12\nENTRYPOINT [\"celery\"]\nCMD [\"-A\", \"proj\", \"worker\"]\n", "celery"},
		{"FROM python:3.12\nCMD celery -A proj beat --schedule=/tmp/beat\n", "celery-beat"},
		{"FROM python:3.12 AS base\nCMD [\"celery\", \"-A\", \"proj\", \"worker\"]\nFROM base\nCMD [\"gunicorn\", \"proj.wsgi\"]\n", ""},
		{"FROM python:3.12\nCMD [\"gunicorn\", \"proj.wsgi\"]\n", ""},
	} {
		r, ok := DockerfileResource([]byte(tt.src), "Dockerfile")
		if !ok || r.Worker != tt.want {
			t.Errorf("DockerfileResource(%q).Worker = %q, want %q", tt.src, r.Worker, tt.want)
		}
	}
}

func TestIsAddressTemplate(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"jdbc:mysql://{DB_HOST}/orders", true},
		{"mongodb://mongo:27017/books", true},
		{"amqp://guest:guest@{BROKER_HOST}:5672/", true},
		{"http://{USERS_HOST}:8080/users", true},
		{"mysql:host=db;dbname=shop", true},
		{"https://github.com/acme/shop", false}, // a literal http URL is left to the calls
		{"http://%s/stock/", false},
		{"postgres://{}:5432", false},
		{"see mongodb://mongo:27017 in the docs", false},
	}
	for _, tt := range tests {
		if got := isAddressTemplate(tt.in); got != tt.want {
			t.Errorf("isAddressTemplate(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestAddEnvRefs(t *testing.T) {
	// ${GITHUB_SHA:0:7} and ${TAG:1} are shell substrings, not defaults;
	// ${DB_HOST:db} is Spring's default.
	text := "#!/bin/sh\nexec locust --host=\"$TARGET_URL\" -u ${USERS:-10} --tags $lower\nID=${GITHUB_SHA:0:7} V=${TAG:1} H=${DB_HOST:db}\n"
	chunks := []core.Chunk{{Text: text, LineStart: 1, Corpus: core.CodeLogic}}
	AddEnvRefs(chunks, "shell")
	var got []string
	for _, b := range chunks[0].Bindings {
		got = append(got, b.Env+"="+b.Default)
	}
	if d := cmp.Diff([]string{"USERS=10", "GITHUB_SHA=", "TAG=", "DB_HOST=db", "TARGET_URL="}, got); d != "" {
		t.Errorf("env refs (-want +got):\n%s", d)
	}
	py := []core.Chunk{{Text: "x = '${NOT_READ}'", LineStart: 1, Corpus: core.CodeLogic}}
	AddEnvRefs(py, "python")
	if len(py[0].Bindings) != 0 || !strings.Contains(py[0].Text, "NOT_READ") {
		t.Errorf("a parsed language got text refs: %+v", py[0].Bindings)
	}
}

// TestDotEnvMasksValues: an environment file with real values is indexed
// with every value that could be a secret masked, in the chunk text and in
// the settings resource; addresses, ports and flags stay (compose
// interpolation and the service graph need them).
func TestDotEnvMasksValues(t *testing.T) {
	c := newChunker(t)
	src := `# local stack
IMAGE_VERSION=1.4.2
CART_ADDR=cart:7070
DATABASE_URL=postgres://shop:hunter2@db:5432/shop
export STRIPE_API_KEY=sk_live_51HqZ2aKf9
SESSION_SECRET="correct horse battery staple"
OPAQUE=Zk9yZ2V0TWVOb3RJc0FTZWNyZXRWYWx1ZQ
FEATURE_FLAGS=on
`
	if !IsSecretEnvFile("deploy/.env") || !IsSecretEnvFile("init/ledger.env") || IsSecretEnvFile(".env.example") {
		t.Fatal("IsSecretEnvFile")
	}
	r := c.DotEnv([]byte(src), core.Chunk{FilePath: ".env", Corpus: core.CodeConfig, Language: "dotenv"})
	var text strings.Builder
	for _, ch := range r.Chunks {
		text.WriteString(ch.Text)
		if ch.Verbatim() {
			t.Errorf("chunk %d claims to be the file's bytes", ch.LineStart)
		}
	}
	for _, secret := range []string{"hunter2", "sk_live", "horse", "Zk9yZ2V0"} {
		if strings.Contains(text.String(), secret) {
			t.Errorf("chunk text keeps %q:\n%s", secret, text.String())
		}
	}
	for _, kept := range []string{"DATABASE_URL=postgres://db:5432/shop", "IMAGE_VERSION=1.4.2", "CART_ADDR=cart:7070", "FEATURE_FLAGS=on", "STRIPE_API_KEY=…"} {
		if !strings.Contains(text.String(), kept) {
			t.Errorf("chunk text lacks %q:\n%s", kept, text.String())
		}
	}
	if len(r.Chunks) == 0 || len(r.Chunks[0].Resources) != 1 {
		t.Fatalf("want one settings resource, got %+v", r.Chunks)
	}
	want := map[string]string{"IMAGE_VERSION": "1.4.2", "CART_ADDR": "cart:7070", "FEATURE_FLAGS": "on", "DATABASE_URL": "postgres://db:5432/shop"}
	if d := cmp.Diff(want, r.Chunks[0].Resources[0].Data); d != "" {
		t.Errorf("settings (-want +got):\n%s", d)
	}
}

// TestDocNginxExample: a document's example nginx configuration (a man
// page's, a text README's) declares no proxy; the same text as a
// configuration file does.
func TestDocNginxExample(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	conf := []byte("upstream discovery {\n    server 192.0.2.1:8443;\n}\nserver {\n    listen 443;\n    location / {\n        proxy_pass http://discovery;\n    }\n}\n")
	for _, tt := range []struct {
		file   string
		corpus core.CorpusType
		proxy  bool
	}{
		{"man/stdiscosrv.1", core.DocReadme, false},
		{"deploy/nginx/discovery.conf", core.CodeConfig, true},
	} {
		r, _, err := c.File(conf, core.Chunk{FilePath: tt.file, Language: "text", Corpus: tt.corpus})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ch := range r.Chunks {
			for _, res := range ch.Resources {
				found = found || res.Kind == ResourceProxy
			}
		}
		if found != tt.proxy {
			t.Errorf("%s: proxy resource %v, want %v", tt.file, found, tt.proxy)
		}
	}
}
