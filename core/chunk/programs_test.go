package chunk

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

func TestProgramWords(t *testing.T) {
	tests := []struct {
		name    string
		items   []string
		command bool
		want    []string
	}{
		{"command list", []string{"/usr/local/bin/cart", "--port", "8080"}, true, []string{"/usr/local/bin/cart"}},
		{"bare command", []string{"cartd", "serve"}, true, []string{"cartd"}},
		{"args name a path", []string{"/usr/local/bin/cart", "--port=8080"}, false, []string{"/usr/local/bin/cart"}},
		{"bare args are not programs", []string{"serve", "--verbose"}, false, nil},
		{"shell form", []string{"/notifier --verbose"}, true, []string{"/notifier"}},
		{"sh -c", []string{"/bin/sh", "-c", "exec ./server --config /etc/app.yaml"}, true, []string{"/bin/sh", "./server"}},
		{"sh -c, a bare program", []string{"/bin/sh", "-ec", "kube-proxy --v=2 1>>/var/log/kube-proxy.log"}, true, []string{"/bin/sh", "kube-proxy"}},
		{"bash -c in one string", []string{"bash -c 'cartd serve'"}, true, []string{"bash", "cartd"}},
		{"files are not programs", []string{"/usr/bin/app", "-conf", "/etc/Corefile", "/dev/", "/srv/tls.crt", "/opt/app/bin/worker"}, false, []string{"/usr/bin/app", "/opt/app/bin/worker"}},
		{"flags and templates", []string{"--listen=:{{ .Values.port }}", "$(HOME)/bin/x", "{{ .Values.cmd }}"}, false, nil},
		{"once each", []string{"/cart", "/cart"}, true, []string{"/cart"}},
		// A script's later statements run tools, not the service.
		{"sh -c, tools after the first statement", []string{"/bin/sh", "-c", "/opt/seed/wait; sleep 30; echo hi | /usr/bin/store upload -server=a:9333; done"}, true, []string{"/bin/sh", "/opt/seed/wait"}},
		{"sh -c, && ends the first statement", []string{"sh", "-c", "./migrate && /usr/bin/app serve"}, true, []string{"sh", "./migrate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, programWords(nil, tt.items, tt.command)); d != "" {
				t.Errorf("programWords(%q) (-want +got):\n%s", tt.items, d)
			}
		})
	}
}

func TestWorkloadPrograms(t *testing.T) {
	helm := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger-worker
spec:
  template:
    spec:
      initContainers:
      - name: wait
        command: ["/bin/wait-for", "db:5432"]
      containers:
      - name: worker
        command:
{{- if .Values.debug.enabled }}
        - "/dlv"
{{- else }}
        - "/worker"
{{- end }}
        args:
        # the queue to drain
        - "--queue"
        - "{{ .Values.queue }}"
        ports:
        - containerPort: 8080
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger-cron
spec:
  template:
    spec:
      containers:
      - name: cron
        command: >-
          /usr/bin/ledger-cron
          --every {{ .Values.every }}
        env:
        - name: MODE
          value: batch
`
	kube := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger-api
spec:
  template:
    spec:
      initContainers:
        - name: migrate
          image: ledger
          command: [/usr/local/bin/migrate]
      containers:
        - name: api
          image: ledger
          args: [/usr/local/bin/ledger-api, --port=8080]
`
	compose := `services:
  exporter:
    image: ledger
    command: /exporter --interval 30s
  sidecar:
    image: ledger
    entrypoint: ["/bin/tini", "--"]
    command: ["/usr/bin/sidecar", "run"]
`
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  func() []core.Resource
		want map[string][]string
	}{
		{"helm template", func() []core.Resource { return helmResources([]byte(helm), "ledger", false) },
			map[string][]string{"ledger-worker": {"/dlv", "/worker"}, "ledger-cron": {"/usr/bin/ledger-cron"}}},
		{"kubernetes", func() []core.Resource {
			return resourcesOf(c.Kubernetes([]byte(kube), core.Chunk{RepoName: "ledger", FilePath: "deploy/api.yaml"}))
		}, map[string][]string{"ledger-api": {"/usr/local/bin/ledger-api"}}},
		{"compose", func() []core.Resource {
			return resourcesOf(c.Compose([]byte(compose), core.Chunk{RepoName: "ledger", FilePath: "docker-compose.yml"}))
		}, map[string][]string{"exporter": {"/exporter"}, "sidecar": {"/bin/tini", "/usr/bin/sidecar"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string][]string{}
			for _, r := range tt.got() {
				if len(r.Programs) > 0 {
					got[r.Name] = r.Programs
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("programs by workload (-want +got):\n%s", d)
			}
		})
	}
}

// resourcesOf returns the resources of a result's chunks.
func resourcesOf(r Result) []core.Resource {
	var out []core.Resource
	for _, ch := range r.Chunks {
		out = append(out, ch.Resources...)
	}
	return out
}

func TestGoBuildResource(t *testing.T) {
	tests := []struct {
		name, src string
		want      map[string]string
		line      int
	}{
		{"dockerfile", "FROM golang:1.23 AS build\nWORKDIR /src\nCOPY . .\nRUN CGO_ENABLED=0 go build \\\n    -ldflags '-s -w' \\\n    -o /out/settler ./cmd/settler && go build -o=/out/admin ./cmd/admin\n",
			map[string]string{"settler": "./cmd/settler", "admin": "./cmd/admin"}, 4},
		{"makefile", "build:\n\tgo build -trimpath -o bin/ledgerd cmd/ledger/main.go\n\t${GO_VARS} go build -ldflags $(GO_LDFLAGS) -o bin/ ./cmd/tool\n",
			map[string]string{"ledgerd": "cmd/ledger/main.go", "tool": "./cmd/tool"}, 2},
		{"import path", "go build -tags netgo -o /usr/local/bin/api example.org/shop/cmd/api\n", map[string]string{"api": "example.org/shop/cmd/api"}, 1},
		{"computed, several packages, no output", "go build -o $(BIN) ./cmd/x\ngo build -o bin/y ./cmd/a ./cmd/b\ngo build ./...\n", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := GoBuildResource([]byte(tt.src))
			if ok != (tt.want != nil) {
				t.Fatalf("found %v (%v), want %v", ok, r.Data, tt.want)
			}
			if !ok {
				return
			}
			if d := cmp.Diff(tt.want, r.Data); d != "" || r.Kind != core.ResourceGoBuild || r.Line != tt.line {
				t.Errorf("kind %q, line %d (want %d), data (-want +got):\n%s", r.Kind, r.Line, tt.line, d)
			}
		})
	}
}

// FuzzPrograms checks that the readers of commands and build scripts
// take any text: no panic, at most maxPrograms programs, and no build
// of an empty name or package.
func FuzzPrograms(f *testing.F) {
	f.Add("containers:\n- name: a\n  command:\n{{- if .x }}\n  - /a\n{{- end }}\n  args: [/b, -c]\n")
	f.Add("command: >-\n  sh -c 'exec ./server'\n")
	f.Add("RUN go build \\\n -ldflags \"-s -w\" -o /out/app ./cmd/app && go build -o=x $(PKG)\n")
	f.Add("go build -o")
	f.Add("- command:\n- args:\n")
	f.Fuzz(func(t *testing.T, src string) {
		if got := helmPrograms([]byte(src)); len(got) > maxPrograms {
			t.Errorf("%d programs", len(got))
		}
		if got := programWords(nil, strings.Split(src, "\n"), true); len(got) > maxPrograms {
			t.Errorf("%d programs", len(got))
		}
		if r, ok := GoBuildResource([]byte(src)); ok {
			for name, pkg := range r.Data {
				if name == "" || pkg == "" {
					t.Errorf("build %q of %q", name, pkg)
				}
			}
		}
	})
}

func TestMountedReads(t *testing.T) {
	mounted := [][2]string{{"./config", "/etc/app/"}, {"./rules", "/rules"}, {"./app.yaml", "/etc/other/app.yaml"}, {"./data", ""}}
	tests := []struct {
		items []string
		want  string
	}{
		{[]string{"-config.file=/etc/app/app.yaml -target=read"}, "config/app.yaml"},
		{[]string{"--config.file=/etc/app/app.yaml", "--rules", "/rules/alerts/high.yml"}, "config/app.yaml rules/alerts/high.yml"},
		{[]string{"/usr/bin/app", "-config", "'/etc/app/sub/../app.yaml'"}, "config/app.yaml"},
		// A mounted file, a path outside every mount, a relative path
		// and a word are no files of a mounted folder.
		{[]string{"--config=/etc/other/app.yaml", "--log=/var/log/app.log", "conf/app.yaml", "serve"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := strings.Join(mountedReads(mounted, tt.items), " "); got != tt.want {
			t.Errorf("mountedReads(%q) = %q, want %q", tt.items, got, tt.want)
		}
	}
}

// TestMigrationCommand: the commands of database migration jobs, across
// the tools that run them, and commands that only mention a migration.
func TestMigrationCommand(t *testing.T) {
	for _, tt := range []struct {
		items []string
		want  bool
	}{
		{[]string{"-c /etc/config/identity.yml migrate sql -e --yes"}, true},
		{[]string{"python", "manage.py", "migrate", "--noinput"}, true},
		{[]string{"sh", "-c", "bundle exec rails db:migrate && exit 0"}, true},
		{[]string{"npx", "prisma", "migrate", "deploy"}, true},
		{[]string{"alembic", "-c", "/etc/alembic.ini", "upgrade", "head"}, true},
		{[]string{"/app/bin/migrations"}, false},                                     // a path: the program's own name says nothing
		{[]string{"sh", "-c", "./app migrate && exec ./app serve"}, false},           // migrates, then serves: the application
		{[]string{"sh", "-c", "alembic upgrade head; exec gunicorn app:api"}, false}, // likewise
		{[]string{"sh", "-c", "sleep 5 && ./app migrate"}, true},                     // waits, then migrates
		{[]string{"serve", "-c", "/etc/config/identity.yml", "--dev"}, false},
		{[]string{"gunicorn", "--migrate-timeout=30", "app.wsgi"}, false},
		{[]string{"pip", "install", "--upgrade", "alembic"}, false},
		{nil, false},
	} {
		if got := migrationCommand(tt.items); got != tt.want {
			t.Errorf("migrationCommand(%q) = %v, want %v", tt.items, got, tt.want)
		}
	}
}

// TestTaskWorker: the commands that run a Celery worker, however the
// command line is written, and Celery's commands that run none.
func TestTaskWorker(t *testing.T) {
	for _, tt := range []struct {
		items []string
		want  string
	}{
		{[]string{"celery -A tasks worker --loglevel=info"}, "celery"},
		{[]string{"celery", "--app", "proj.celery:app", "worker", "-Q", "mail,reports"}, "celery"},
		{[]string{"python", "-m", "celery", "-A", "proj", "worker", "-B"}, "celery"},
		{[]string{"sh", "-c", "exec /venv/bin/celery -A proj worker -l info"}, "celery"},
		{[]string{"watchmedo", "auto-restart", "--pattern=*.py", "--", "celery", "-A", "proj", "worker"}, "celery"},
		{[]string{"celery", "--broker", "redis://cache:6379/0", "-A", "proj", "worker"}, "celery"},
		{[]string{"celery", "-A", "proj", "beat"}, "celery-beat"},                                       // the scheduler: it sends
		{[]string{"celery", "--broker=redis://cache:6379/0", "flower", "--port=5555"}, "celery-flower"}, // the dashboard
		{[]string{"flower --app=worker.celery --port=5555"}, "celery-flower"},
		{[]string{"celery worker --app=worker.celery --loglevel=info"}, "celery"}, // Celery 4: the command first
		{[]string{"celery", "-A", "worker", "inspect", "ping"}, ""},               // an app named worker
		{[]string{"bundle", "exec", "sidekiq", "-C", "config/sidekiq.yml"}, "sidekiq"},
		{[]string{"sh", "-c", "bin/rails db:prepare && exec bundle exec sidekiq"}, "sidekiq"},
		{[]string{"bundle exec good_job start --max-threads=5"}, "good_job"},
		{[]string{"./bin/jobs"}, "solid_queue"},
		{[]string{"bundle", "exec", "rake", "resque:work"}, "resque"},
		{[]string{"bundle", "exec", "rails", "jobs:work"}, "delayed_job"},
		{[]string{"bundle", "exec", "puma", "-C", "config/sidekiq.rb"}, ""}, // a file named after it
		{[]string{"gunicorn", "worker.wsgi"}, ""},
		{nil, ""},
	} {
		if got := taskWorker(tt.items); got != tt.want {
			t.Errorf("taskWorker(%q) = %q, want %q", tt.items, got, tt.want)
		}
	}
}

// TestDaprAppID: the app id of a daprd command line, in each way its
// flag is written.
func TestDaprAppID(t *testing.T) {
	for _, tt := range []struct {
		items []string
		want  string
	}{
		{[]string{"./daprd", "-app-id", "sensors", "-app-port", "8080"}, "sensors"},
		{[]string{"./daprd", "--app-id", "watering"}, "watering"},
		{[]string{"./daprd -app-id=climate-control -app-port=3000"}, "climate-control"},
		{[]string{"daprd", "--app-id=\"quoted\""}, "quoted"},
		{[]string{"./daprd", "-app-port", "8080"}, ""},
	} {
		if got := daprAppID(tt.items); got != tt.want {
			t.Errorf("daprAppID(%q) = %q, want %q", tt.items, got, tt.want)
		}
	}
}

// TestCommandFlags: the options a command passes, in each way a shell
// command or an args list writes them.
func TestCommandFlags(t *testing.T) {
	for _, tt := range []struct {
		items []string
		want  []core.EnvVar
	}{
		{[]string{`volume -ip=volume -master="master:9333" -port=8080`}, []core.EnvVar{{Name: "ip", Value: "volume"}, {Name: "master", Value: "master:9333"}, {Name: "port", Value: "8080"}}},
		{[]string{"--queue-url", "amqp://broker:5672", "--verbose", "run"}, []core.EnvVar{{Name: "queue-url", Value: "amqp://broker:5672"}}},
		{[]string{"--broker kafka:9092"}, []core.EnvVar{{Name: "broker", Value: "kafka:9092"}}},
		{[]string{"-peers=a:7100,b:7100"}, []core.EnvVar{{Name: "peers", Value: "a:7100"}, {Name: "peers", Value: "b:7100"}}},
		{[]string{"-c", "echo x | /usr/bin/store upload -server=a:9333; sleep 5"}, []core.EnvVar{{Name: "server", Value: "a:9333"}}},
		{[]string{"--tags=a,b"}, []core.EnvVar{{Name: "tags", Value: "a,b"}}},
		{[]string{"--config", "/etc/app.yaml", "serve"}, nil}, // a path after a flag may be an argument
		{[]string{"sh", "-c", "exec app --db=postgres://db:5432/app"}, []core.EnvVar{{Name: "db", Value: "postgres://db:5432/app"}}},
		{[]string{"-", "--", "--="}, nil},
	} {
		if d := cmp.Diff(tt.want, commandFlags(tt.items)); d != "" {
			t.Errorf("commandFlags(%q) (-want +got):\n%s", tt.items, d)
		}
	}
}

// TestConfigAddressesHostPort: a host and its port under keys of their
// own are one address, kept under the host's key; a host with no port,
// or a port beside a host that has one, stays as it was; Envoy's
// socket_address keeps its form; a UI's links are none.
func TestConfigAddressesHostPort(t *testing.T) {
	src := `persistence:
  postgresql:
    host: jobsdb
    port: 5432
    database: jobs
cache:
  hosts: "127.0.0.1"
  port: 6379
search:
  server: "index:9200"
  port: 9300
admin:
  socket_address:
    address: xds
    port_value: 18000
links:
  - name: Completed runs
    url: http://runs?label=completed
`
	data, keys := configAddresses([]byte(src), ".yaml")
	want := map[string]string{
		"persistence.postgresql.host": "jobsdb:5432",
		"search.server":               "index:9200",
		"admin.socket_address":        "xds:18000",
	}
	if d := cmp.Diff(want, data); d != "" {
		t.Errorf("configAddresses (-want +got):\n%s", d)
	}
	if len(keys) != 3 || keys[0] != (core.KeyLine{Key: "persistence.postgresql.host", Line: 3}) {
		t.Errorf("keys %+v: want the host's line first", keys)
	}
}

// TestConfigFileSchemas: a JSON Schema (by name, or by its $schema)
// describes a configuration: its example addresses configure nothing,
// and neither do examples: keys in a config.
func TestConfigFileSchemas(t *testing.T) {
	schema := `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"check_session_url": {"type": "string", "examples": ["https://session-store-host"]}}}`
	for _, name := range []string{"spec/config.schema.json", "spec/authorizer.json"} {
		base := core.Chunk{FilePath: name, Corpus: core.CodeConfig}
		if r, ok := configFileResource(base, []byte(schema)); ok {
			t.Errorf("%s: a schema gave addresses %v", name, r.Data)
		}
	}
	data, _ := configAddresses([]byte("upstream:\n  url: http://relay:8080\n  examples:\n    - http://other-host:9000\n  example: http://third-host:9000\n"), ".yaml")
	if d := cmp.Diff(map[string]string{"upstream.url": "http://relay:8080"}, data); d != "" {
		t.Errorf("examples kept (-want +got):\n%s", d)
	}
}
