#!/usr/bin/env bash
# sources.sh WORKDIR: fetch the training sources of the shipped embedding
# model into WORKDIR (Debian packages, npm tarballs of pinned versions,
# the Go toolchain's and the module cache's sources) and print them as the
# NAME=DIR arguments of 'coderag model'. README.md lists each source and
# its licence. Nothing here is, or comes from, an evaluation set.
set -euo pipefail
WORK=${1:?usage: sources.sh WORKDIR}
mkdir -p "$WORK"
log() { echo "sources.sh: $*" >&2; }

# Debian: OpenJDK 17's sources and Python libraries.
PYPKGS="python3-django python3-sqlalchemy python3-flask python3-werkzeug python3-jinja2 python3-requests
python3-redis python3-pika python3-kombu python3-celery python3-boto3 python3-grpcio python3-pymongo
python3-psycopg2 python3-aiohttp python3-fastapi python3-pydantic python3-starlette
python3-tornado python3-twisted python3-kafka python3-elasticsearch python3-prometheus-client python3-pymysql
python3-marshmallow python3-paramiko python3-docker python3-httpx python3-urllib3 python3-click python3-gunicorn
python3-structlog python3-tenacity python3-cachetools python3-stripe python3-botocore"
# Debian: Rust crates (sources under /usr/share/cargo/registry, with the
# crates they depend on).
RUSTPKGS="librust-tokio-dev librust-hyper-dev librust-serde-dev librust-reqwest-dev librust-tower-dev
librust-tracing-dev librust-futures-dev librust-prost-dev librust-chrono-dev librust-regex-dev
librust-clap-dev librust-rand-dev librust-anyhow-dev librust-async-trait-dev librust-backoff-dev
librust-bytes-dev librust-config-dev librust-crossbeam-dev librust-dashmap-dev
librust-env-logger-dev librust-h2-dev librust-http-dev librust-isahc-dev librust-log-dev
librust-lru-dev librust-mio-dev librust-native-tls-dev librust-parking-lot-dev
librust-prometheus-dev librust-r2d2-dev librust-rayon-dev librust-retry-dev librust-rusqlite-dev
librust-rustls-dev librust-serde-json-dev librust-thiserror-dev librust-tokio-postgres-dev
librust-tokio-util-dev librust-tracing-subscriber-dev librust-ureq-dev librust-url-dev
librust-uuid-dev"
need=""
[ -s /usr/lib/jvm/openjdk-17/src.zip ] || need="openjdk-17-source"
for p in $PYPKGS $RUSTPKGS; do dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"; done
if [ -n "$need" ]; then
	log "installing Debian packages:$need"
	apt-get install -y --no-install-recommends $need >&2
fi
if [ ! -d "$WORK/jdk/java.base" ]; then
	log "unpacking OpenJDK 17 sources"
	mkdir -p "$WORK/jdk"
	unzip -q -o /usr/lib/jvm/openjdk-17/src.zip 'java.base/*' 'java.sql/*' 'java.net.http/*' \
		'java.logging/*' 'java.management/*' 'java.xml/*' -d "$WORK/jdk"
fi

# fetch_npm DIR PKG@VERSION...: npm tarballs unpacked under DIR/src.
fetch_npm() {
	local dir=$1
	shift
	[ -d "$dir/src" ] && return
	log "fetching npm packages into $dir"
	mkdir -p "$dir/tgz" "$dir/src"
	(cd "$dir/tgz" && npm pack --silent "$@" >/dev/null)
	for f in "$dir"/tgz/*.tgz; do
		n=$(basename "$f" .tgz)
		mkdir -p "$dir/src/$n"
		tar -xzf "$f" -C "$dir/src/$n" --strip-components=1
	done
}
# fetch_go DIR MODULE@VERSION...: Go modules in a module cache at DIR.
fetch_go() {
	local dir=$1
	shift
	[ -d "$dir/cache" ] && return
	log "fetching Go modules into $dir"
	mkdir -p "$dir"
	(cd "$WORK" && GOMODCACHE="$dir" GOFLAGS=-modcacherw go mod download "$@")
}
# npm: pinned versions.
NPM="@types/node@20.17.10 express@4.21.2 lodash@4.17.21 mongoose@8.9.5 ioredis@5.4.2 amqplib@0.10.5
axios@1.7.9 kafkajs@2.2.4 pg@8.13.1 mysql2@3.12.0 @grpc/grpc-js@1.12.5 vue@3.5.13 rxjs@7.8.1
winston@3.17.0 jsonwebtoken@9.0.2 redis@4.7.0 @redis/client@1.6.0 koa@2.15.3 fastify@5.2.1 mongodb@6.12.0"
fetch_npm "$WORK/npm" $NPM

# Go: the toolchain's standard library and the modules coderag builds with.
GOROOT_SRC=$(go env GOROOT)/src
# The modules coderag builds, tests and demos with, in a module cache of
# their own (not the user's, which holds whatever else was fetched): those
# of go.mod, the tests' (go list -test) and VHS's for the tapes (.ci/vhs).
# The committed model was mined from exactly this set.
MODCACHE=$WORK/gomodself
if [ ! -d "$MODCACHE/github.com" ]; then
	log "fetching the modules coderag builds, tests and demos with"
	repo=$(cd "$(dirname "$0")/../../.." && pwd)
	(
		export GOMODCACHE=$MODCACHE GOFLAGS=-modcacherw
		cd "$repo" && go mod download && go list -tags sqlite_fts5 -test -deps ./... >/dev/null &&
			go -C .ci/vhs list -deps github.com/charmbracelet/vhs >/dev/null
	) >&2
fi

# Go: client libraries of the services coderag indexes (RPC, brokers,
# databases, clouds, metrics), pinned, in a module cache of their own.
GOMODS="google.golang.org/grpc@v1.85.0 github.com/prometheus/client_golang@v1.25.0
github.com/redis/go-redis/v9@v9.23.0 github.com/segmentio/kafka-go@v0.4.51 github.com/jackc/pgx/v5@v5.12.0
go.mongodb.org/mongo-driver/v2@v2.10.0 github.com/gin-gonic/gin@v1.12.0 github.com/labstack/echo/v4@v4.16.0
github.com/nats-io/nats.go@v1.55.0 github.com/IBM/sarama@v1.61.1 github.com/minio/minio-go/v7@v7.4.1
go.opentelemetry.io/otel/sdk@v1.47.0 k8s.io/client-go@v0.37.2 github.com/aws/aws-sdk-go-v2@v1.47.7
github.com/aws/aws-sdk-go-v2/service/sqs@v1.52.10 github.com/aws/aws-sdk-go-v2/service/dynamodb@v1.73.1"
fetch_go "$WORK/gomod" $GOMODS

# More text (2026-11-25): a second and third set of Go modules and npm
# packages — servers, brokers, databases, clouds, Kubernetes, frameworks —
# each set in a folder of its own, named as the model was trained on them
# (gomody, npmx, gomodz, npmy: the names choose the held-out packages).
GOMODS2="k8s.io/api@v0.37.2 k8s.io/apimachinery@v0.37.2 github.com/prometheus/prometheus@v0.316.0
go.etcd.io/etcd/client/v3@v3.7.3 github.com/docker/docker@v28.5.2+incompatible
cloud.google.com/go/storage@v1.70.0 github.com/Azure/azure-sdk-for-go/sdk/azcore@v1.24.0
github.com/Azure/azure-sdk-for-go/sdk/storage/azblob@v1.8.3 gorm.io/gorm@v1.31.2
go.uber.org/zap@v1.28.0 github.com/sirupsen/logrus@v1.10.2 github.com/go-chi/chi/v5@v5.5.0
github.com/gorilla/mux@v1.8.1 github.com/elastic/go-elasticsearch/v8@v8.19.7
github.com/rabbitmq/amqp091-go@v1.16.0 github.com/nats-io/nats-server/v2@v2.15.2
github.com/go-sql-driver/mysql@v1.10.1 github.com/lib/pq@v1.12.3
github.com/hashicorp/go-retryablehttp@v0.7.8 github.com/grpc-ecosystem/grpc-gateway/v2@v2.33.0
github.com/spf13/viper@v1.21.0 github.com/urfave/cli/v2@v2.27.7 github.com/gofiber/fiber/v2@v2.52.15
github.com/valyala/fasthttp@v1.78.0 github.com/ClickHouse/clickhouse-go/v2@v2.50.0
github.com/dgraph-io/badger/v4@v4.9.6 go.temporal.io/sdk@v1.50.0 github.com/hashicorp/raft@v1.8.0"
NPM2="typescript@5.8.3 @aws-sdk/client-s3@3.1175.0 @azure/storage-blob@12.34.0 @google-cloud/storage@8.4.0
zod@4.6.7 @types/react@19.3.0 @nestjs/common@12.5.1 typeorm@1.1.1 sequelize@6.37.8 socket.io@4.8.4
graphql@17.1.0 @opentelemetry/api@1.10.0 prom-client@15.1.3 pino@10.4.0 bullmq@6.7.0 knex@3.3.0
@types/express@5.0.6 @apollo/server@5.5.1 ws@8.23.0"
GOMODS3="istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad github.com/open-policy-agent/opa@v1.22.2
github.com/caddyserver/caddy/v2@v2.11.9 github.com/twmb/franz-go@v1.22.3
github.com/ThreeDotsLabs/watermill@v1.5.1 go.uber.org/fx@v1.24.0 github.com/jmoiron/sqlx@v1.4.0
github.com/golang-migrate/migrate/v4@v4.20.1 github.com/containerd/containerd/v2@v2.4.2
github.com/coreos/go-oidc/v3@v3.21.0 github.com/golang-jwt/jwt/v5@v5.3.1
github.com/spiffe/go-spiffe/v2@v2.9.0
go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp@v0.72.0
github.com/jaegertracing/jaeger@v1.76.0 sigs.k8s.io/controller-runtime@v0.25.2
helm.sh/helm/v3@v3.22.0 github.com/hashicorp/terraform-plugin-framework@v1.19.0
github.com/redis/rueidis@v1.0.79 github.com/cockroachdb/pebble@v1.1.5 go.etcd.io/bbolt@v1.5.0"
NPM3="@nestjs/core@12.5.1 @nestjs/microservices@12.1.1 @aws-sdk/client-sqs@3.1175.0
@aws-sdk/client-dynamodb@3.1169.0 @azure/service-bus@7.9.5 @azure/cosmos@4.10.1
@google-cloud/pubsub@6.3.2 drizzle-orm@0.45.4 undici@8.13.1 got@16.1.0 passport@0.7.0 helmet@8.3.0
class-validator@0.15.1 joi@18.3.2 yup@1.7.1 date-fns@4.4.0 luxon@3.7.2 uuid@14.0.3"
fetch_go "$WORK/gomod2" $GOMODS2
fetch_npm "$WORK/npm2" $NPM2
fetch_go "$WORK/gomod3" $GOMODS3
fetch_npm "$WORK/npm3" $NPM3

# More text (2026-11-25, later): Debian 12's Go (golang-*-dev), Python
# (python3-*) and JavaScript/TypeScript (node-*) library packages of
# debian.txt — pinned versions, each under a permissive or weak-copyleft
# licence — downloaded (not installed) and unpacked. A Go module or Python
# package another source already gives is removed from them, so that no
# package is trained on in one source while held out in another; so are
# minified scripts and source maps.
fetch_debian() {
	local set=$1
	local dir=$WORK/deb$set
	[ -d "$dir/usr" ] && return
	log "fetching Debian packages ($set) into $dir"
	mkdir -p "$WORK/debs/$set" "$dir"
	awk -v s="$set" '$1 == s {print $2}' "$(dirname "$0")/debian.txt" >"$WORK/debs/$set.list"
	# Fifty at a time; when a batch fails (a version the mirror no longer
	# serves), its packages one by one, each that fails named.
	(cd "$WORK/debs/$set" && xargs -n 50 sh -c 'apt-get download -qq "$@" 2>/dev/null ||
		for p; do apt-get download -qq "$p" || echo "sources.sh: cannot fetch $p: the model will differ from the committed one" >&2; done' sh <"../$set.list")
	# Two packages may ship one path (a directory in one, a link in the
	# other): the first unpacked keeps it.
	for f in "$WORK/debs/$set"/*.deb; do
		dpkg-deb -x "$f" "$dir" 2>/dev/null || log "$(basename "$f"): a path of it another package holds, kept"
	done
	# Once, after unpacking: what the other sources give goes.
	case $set in
	go)
		for c in "$MODCACHE" "$WORK/gomod" "$WORK/gomod2" "$WORK/gomod3"; do
			find "$c" -mindepth 1 -maxdepth 5 -type d -name '*@v*' -not -path '*/cache/*'
		done | sed -E "s#^($MODCACHE|$WORK/gomod[23]?)/##; s#@v[^/]*\$##; s#/v[0-9]+\$##; s#!##g" | sort -u |
			while read -r m; do
				find "$DEBGO" -maxdepth 4 -type d -ipath "$DEBGO/$m" -prune -exec rm -rf {} +
			done
		;;
	py)
		for p in $PYDIRS; do rm -rf "$DEBPY/$p"; done
		;;
	node)
		find "$DEBNODE" \( -name '*.min.js' -o -name '*.js.map' \) -delete
		;;
	esac
}
DEBGO=$WORK/debgo/usr/share/gocode/src
DEBPY=$WORK/debpy/usr/lib/python3/dist-packages
DEBNODE=$WORK/debnode/usr/share/nodejs
# The Python packages of PYPKGS, by the folders they install.
PYDIRS="django sqlalchemy flask werkzeug jinja2 requests redis pika kombu celery boto3 grpc pymongo bson psycopg2 aiohttp fastapi pydantic starlette
tornado twisted kafka elasticsearch prometheus_client pymysql marshmallow paramiko docker httpx urllib3 click gunicorn structlog tenacity cachetools stripe botocore"
fetch_debian go
fetch_debian py
fetch_debian node

args="go=$GOROOT_SRC python=$(ls -d /usr/lib/python3.1* | head -n1) jdk=$WORK/jdk npm=$WORK/npm/src"
args="$args gomod=$MODCACHE/github.com gox=$MODCACHE/golang.org/x gomodx=$WORK/gomod"
for p in $PYDIRS; do
	[ -d "/usr/lib/python3/dist-packages/$p" ] && args="$args py-$p=/usr/lib/python3/dist-packages/$p"
done
# Rust crates: those of RUSTPKGS and the crates they depend on (not
# whatever else the machine has installed), less the generated bindings
# of C and platform APIs (*-sys, winapi, windows*, web-sys, js-sys), whose
# doc comments are one template repeated.
# (dpkg -L fails on the virtual packages among them, and says nothing.)
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances $RUSTPKGS 2>/dev/null |
	grep -E '^librust-' | sort -u | { xargs dpkg -L 2>/dev/null || true; } | grep -E '^/usr/share/cargo/registry/[^/]+$' | sort -u >"$WORK/crates.txt"
while read -r d; do
	b=$(basename "$d")
	case "$b" in *-sys-*|winapi*|windows*|web-sys*|js-sys*) continue ;; esac
	args="$args rs-$b=$d"
done <"$WORK/crates.txt"
args="$args gomody=$WORK/gomod2 npmx=$WORK/npm2/src gomodz=$WORK/gomod3 npmy=$WORK/npm3/src"
args="$args debgo=$DEBGO debpy=$DEBPY debnode=$DEBNODE"
echo "$args"
