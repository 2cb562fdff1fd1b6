package search

import (
	"testing"

	"coderag/core"
)

func TestPromoteDeclaration(t *testing.T) {
	hit := func(id, file, scope, symbol string) core.Hit {
		return core.Hit{Chunk: core.Chunk{ID: id, FilePath: file, ContextPrefix: scope, SymbolName: symbol}, Score: 1}
	}
	caller := hit("caller", "svc/handler.go", "svc/handler.go > handle", "handle")
	slog := hit("slog", "log/slog/logger.go", "log/slog/logger.go > New", "New")
	logNew := hit("log", "log/log.go", "log/log.go > New", "New")
	test := hit("test", "log/log_test.go", "log/log_test.go > New", "New")
	conn := hit("conn", "net/http/persist.go", "net/http/persist.go > ClientConn > Do", "Do")
	do := hit("do", "net/http/client.go", "net/http/client.go > Client > Do", "Do")
	under := hit("under", "src/mongo_client.ts", "src/mongo_client.ts > MongoClient > _connect", "_connect")
	connect := hit("connect", "src/mongo_client.ts", "src/mongo_client.ts > MongoClient > connect", "connect")
	group := hit("group", "bufio/bufio.go", "bufio/bufio.go", "NewReader, Size")
	for _, tt := range []struct {
		name, query string
		hits        []core.Hit
		first       string // the first hit's id after
		declares    string
	}{
		{"package function", "log.New", []core.Hit{caller, slog, test, logNew}, "log", "log.New"},
		{"question around it", "what does log.New() return?", []core.Hit{caller, logNew}, "log", "log.New"},
		{"method of the type, not of a type holding its name", "Client.Do", []core.Hit{caller, conn, do}, "do", "Client.Do"},
		{"the name as written before a look-alike", "MongoClient.connect", []core.Hit{under, connect}, "connect", "MongoClient.connect"},
		{"a group declaring it", "bufio.NewReader", []core.Hit{caller, group}, "group", "bufio.NewReader"},
		{"already first", "log.New", []core.Hit{logNew, caller}, "log", "log.New"},
		{"tests are not the declaration", "log.New", []core.Hit{caller, test}, "caller", ""},
		{"no declaration under the qualifier", "log.New", []core.Hit{caller, slog}, "caller", ""},
		{"two qualified names", "log.New and Client.Do", []core.Hit{caller, logNew, do}, "caller", ""},
		{"no qualified name", "New", []core.Hit{caller, logNew}, "caller", ""},
		{"a file's name is not a qualified name", "log.go", []core.Hit{caller, logNew}, "caller", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := promoteDeclaration(append([]core.Hit(nil), tt.hits...), tt.query, 50)
			if len(got) != len(tt.hits) {
				t.Fatalf("%d hits after, want %d", len(got), len(tt.hits))
			}
			if got[0].Chunk.ID != tt.first || got[0].Explain.Declares != tt.declares {
				t.Errorf("first %s (declares %q), want %s (declares %q)", got[0].Chunk.ID, got[0].Explain.Declares, tt.first, tt.declares)
			}
			for i := 1; i < len(got); i++ {
				if got[i].Explain.Declares != "" {
					t.Errorf("hit %d (%s) says it declares %q: only the first may", i, got[i].Chunk.ID, got[i].Explain.Declares)
				}
			}
			if tt.declares != "" && got[0].Score < got[1].Score {
				t.Errorf("promoted hit scores %v below the next %v", got[0].Score, got[1].Score)
			}
		})
	}
}
