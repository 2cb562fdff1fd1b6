package postgres

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/ingest"
	"coderag/sqlite/internal/chunkrow"
)

var _ ingest.Store = (*DB)(nil)

// The graph and many crawlers. A commit that changes the graph's input
// sets meta graph_dirty to a fresh random value. GraphDirty remembers the
// value it saw; the crawl then reads the facts and builds the graph.
// WriteGraph writes under an advisory lock, and only while graph_dirty
// still holds the value seen: a source committed after it was seen, whose
// facts the build may have missed, changed the value, and its own crawler
// (which saw the new value) writes the graph instead, and this crawler
// leaves owners and mentions to it (ingest.ErrGraphSuperseded). MarkLinked
// clears graph_dirty only if it still holds the value seen. No update is
// lost: the last commit's crawler always rebuilds from facts that include
// every commit. The link phases themselves run one at a time (LockLink),
// so a slower crawler's owners and mentions, from its older graph, never
// land after a newer one's.
const graphLockSQL = `SELECT pg_advisory_xact_lock(hashtext('coderag graph'))`

// linkLockKey is the advisory lock a crawl's link phase holds (LockLink).
const linkLockKey = `hashtext('coderag link')`

// LockLink holds the link phase's advisory lock on a connection of its
// own until unlock (ingest.LinkLocker): two crawlers' link phases never
// interleave, so owners and mentions always follow the graph written last.
func (db *DB) LockLink(ctx context.Context) (func(), error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, db.wrap("lock the link phase of", err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+linkLockKey+`)`); err != nil {
		conn.Release()
		return nil, db.wrap("lock the link phase of", err)
	}
	return func() {
		conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+linkLockKey+`)`)
		conn.Release()
	}, nil
}

// newDirtyMark is a value no other commit sets.
func newDirtyMark() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// GraphDirty reports whether a source changed the facts the service graph
// is built from since the graph was last written, and remembers the mark
// it saw (see above).
func (db *DB) GraphDirty(ctx context.Context) (bool, error) {
	v, err := db.meta(ctx, db.pool, "graph_dirty")
	if err != nil {
		return false, db.wrap("read the graph state of", err)
	}
	// The files this link phase handles: those unlinked now. Files a
	// crawler commits later stay unlinked for its own link phase, even
	// when this one's MarkLinked comes after that commit.
	var linking []int64
	if err := db.pool.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM files WHERE NOT linked`).Scan(&linking); err != nil {
		return false, db.wrap("read the link state of", err)
	}
	db.mu.Lock()
	db.dirtySeen, db.linking = v, linking
	db.mu.Unlock()
	return v != "", nil
}

func (db *DB) linkingFiles() []int64 {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.linking
}

func (db *DB) seenDirty() string {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.dirtySeen
}

// WriteGraph replaces the service graph in one transaction: readers see
// the old graph or the new one. A graph built from facts older than the
// last commit is not written (ingest.ErrGraphSuperseded: its crawler's
// rebuild will be).
func (db *DB) WriteGraph(ctx context.Context, g *graph.Graph) error {
	what := "write the service graph to"
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.wrap(what, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, graphLockSQL); err != nil {
		return db.wrap(what, err)
	}
	if cur, err := db.meta(ctx, tx, "graph_dirty"); err != nil {
		return db.wrap(what, err)
	} else if cur != db.seenDirty() {
		return ingest.ErrGraphSuperseded // a later commit's crawler writes it
	}
	old := map[string]int64{}
	rows, err := tx.Query(ctx, `SELECT name, id FROM services`)
	if err != nil {
		return db.wrap(what, err)
	}
	for rows.Next() {
		var name string
		var id int64
		if err := rows.Scan(&name, &id); err != nil {
			rows.Close()
			return db.wrap(what, err)
		}
		old[name] = id
	}
	rows.Close()
	for _, q := range []string{`DELETE FROM edge_evidence`, `DELETE FROM edges`, `DELETE FROM service_aliases`, `DELETE FROM service_declarations`, `DELETE FROM service_dirs`} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return db.wrap(what, err)
		}
	}
	ids := map[string]int64{}
	for _, s := range g.Services {
		ports, _ := json.Marshal(nonNil(s.Ports))
		id, ok := old[s.Name]
		if ok {
			_, err = tx.Exec(ctx, `UPDATE services SET kind = $1, repo_name = $2, directory = $3, language = $4, namespace = $5, ports = $6 WHERE id = $7`,
				s.Kind, s.Repo, s.Directory, s.Language, s.Namespace, string(ports), id)
		} else {
			err = tx.QueryRow(ctx, `INSERT INTO services(name, kind, repo_name, directory, language, namespace, ports) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
				s.Name, s.Kind, s.Repo, s.Directory, s.Language, s.Namespace, string(ports)).Scan(&id)
		}
		if err != nil {
			return db.wrap("write service "+s.Name+" to", err)
		}
		ids[s.Name] = id
		var b pgx.Batch
		for _, a := range s.Aliases {
			b.Queue(`INSERT INTO service_aliases(alias, service_id, kind) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, a.Name, id, a.Kind)
		}
		for _, d := range s.Declared {
			b.Queue(`INSERT INTO service_declarations(service_id, chunk_id, file_path, line) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
				id, d.ChunkID, d.Repo+"/"+d.File, d.Line)
		}
		for _, d := range s.OwnedDirs() {
			b.Queue(`INSERT INTO service_dirs(service_id, repo_name, path, why) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
				id, d.Repo, d.Path, d.Why)
		}
		if err := tx.SendBatch(ctx, &b).Close(); err != nil {
			return db.wrap("write the aliases, declarations and folders of "+s.Name+" to", err)
		}
	}
	for name, id := range old {
		if _, keep := ids[name]; !keep {
			if _, err := tx.Exec(ctx, `DELETE FROM services WHERE id = $1`, id); err != nil {
				return db.wrap("remove service "+name+" from", err)
			}
		}
	}
	for _, e := range g.Edges {
		src, ok1 := ids[e.Source]
		dst, ok2 := ids[e.Target]
		if !ok1 || !ok2 {
			return fmt.Errorf("write the service graph to %s: edge %s -> %s names an unknown service", db.name, e.Source, e.Target)
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO edges(source_id, target_id, type, method, path, url, confidence, handler, via)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`, src, dst, e.Type, e.Method, e.Path, e.URL, e.Confidence, e.Handler, e.Via).Scan(&id); err != nil {
			return db.wrap("write edge "+e.Source+" -> "+e.Target+" to", err)
		}
		var b pgx.Batch
		for _, ev := range e.Evidence {
			b.Queue(`INSERT INTO edge_evidence(edge_id, chunk_id, file_path, line) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
				id, ev.ChunkID, ev.Repo+"/"+ev.File, ev.Line)
		}
		if err := tx.SendBatch(ctx, &b).Close(); err != nil {
			return db.wrap("write edge evidence to", err)
		}
	}
	// Every route gets the service the graph says serves it, the others
	// none.
	if _, err := tx.Exec(ctx, `UPDATE routes SET service_id = NULL WHERE service_id IS NOT NULL`); err != nil {
		return db.wrap("write route services to", err)
	}
	var b pgx.Batch
	for _, r := range g.Routes {
		if id, ok := ids[r.Service]; ok {
			b.Queue(`UPDATE routes SET service_id = $1 WHERE chunk_id = $2 AND line = $3 AND method = $4 AND path = $5`, id, r.ChunkID, r.Line, r.Method, r.Path)
		}
	}
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return db.wrap("write route services to", err)
	}
	return db.wrap(what, tx.Commit(ctx))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Graph reads the service graph.
func (db *DB) Graph(ctx context.Context) (*graph.Graph, error) {
	what := "read the service graph from"
	g := &graph.Graph{}
	names := map[int64]string{}
	idx := map[int64]int{}
	rows, err := db.pool.Query(ctx, `SELECT id, name, kind, repo_name, directory, language, namespace, ports FROM services ORDER BY name`)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	for rows.Next() {
		var s graph.Service
		var id int64
		var ports string
		if err := rows.Scan(&id, &s.Name, &s.Kind, &s.Repo, &s.Directory, &s.Language, &s.Namespace, &ports); err != nil {
			rows.Close()
			return nil, db.wrap(what, err)
		}
		json.Unmarshal([]byte(ports), &s.Ports)
		names[id], idx[id] = s.Name, len(g.Services)
		g.Services = append(g.Services, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, db.wrap(what, err)
	}
	rows, err = db.pool.Query(ctx, `SELECT service_id, alias, kind FROM service_aliases ORDER BY service_id, alias, kind`)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	for rows.Next() {
		var id int64
		var a graph.Alias
		if err := rows.Scan(&id, &a.Name, &a.Kind); err != nil {
			rows.Close()
			return nil, db.wrap(what, err)
		}
		if i, ok := idx[id]; ok {
			g.Services[i].Aliases = append(g.Services[i].Aliases, a)
		}
	}
	rows.Close()
	rows, err = db.pool.Query(ctx, `SELECT service_id, repo_name, path, why FROM service_dirs
		ORDER BY service_id, repo_name, path = '.', length(path) DESC, path`)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	for rows.Next() {
		var id int64
		var d graph.Dir
		if err := rows.Scan(&id, &d.Repo, &d.Path, &d.Why); err != nil {
			rows.Close()
			return nil, db.wrap(what, err)
		}
		if i, ok := idx[id]; ok {
			g.Services[i].Dirs = append(g.Services[i].Dirs, d)
		}
	}
	rows.Close()
	rows, err = db.pool.Query(ctx, `SELECT d.service_id, d.chunk_id, coalesce(c.repo_name, ''), coalesce(c.file_path, d.file_path), d.line
		FROM service_declarations d LEFT JOIN chunks c ON c.id = d.chunk_id ORDER BY d.service_id, d.id`)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	for rows.Next() {
		var id int64
		var ev graph.Evidence
		if err := rows.Scan(&id, &ev.ChunkID, &ev.Repo, &ev.File, &ev.Line); err != nil {
			rows.Close()
			return nil, db.wrap(what, err)
		}
		if i, ok := idx[id]; ok {
			g.Services[i].Declared = append(g.Services[i].Declared, ev)
		}
	}
	rows.Close()
	rows, err = db.pool.Query(ctx, `SELECT e.id, e.source_id, e.target_id, e.type, e.method, e.path, e.url, e.confidence, e.handler, e.via,
		coalesce(v.chunk_id, ''), coalesce(v.file_path, ''), coalesce(v.line, 0), coalesce(c.repo_name, ''), coalesce(c.file_path, '')
		FROM edges e LEFT JOIN edge_evidence v ON v.edge_id = e.id LEFT JOIN chunks c ON c.id = v.chunk_id
		ORDER BY e.id, v.id`)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	edgeIdx := map[int64]int{}
	for rows.Next() {
		var id, src, dst int64
		var e graph.Edge
		var ev graph.Evidence
		var evPath string
		if err := rows.Scan(&id, &src, &dst, &e.Type, &e.Method, &e.Path, &e.URL, &e.Confidence, &e.Handler, &e.Via,
			&ev.ChunkID, &evPath, &ev.Line, &ev.Repo, &ev.File); err != nil {
			rows.Close()
			return nil, db.wrap(what, err)
		}
		i, ok := edgeIdx[id]
		if !ok {
			e.Source, e.Target = names[src], names[dst]
			i = len(g.Edges)
			edgeIdx[id] = i
			g.Edges = append(g.Edges, e)
		}
		if ev.ChunkID != "" {
			if ev.File == "" {
				ev.File = evPath
			}
			g.Edges[i].Evidence = append(g.Edges[i].Evidence, ev)
		}
	}
	rows.Close()
	rows, err = db.pool.Query(ctx, `SELECT s.name, r.chunk_id, r.repo_name, r.file_path, r.line, r.method, r.path, r.framework, r.handler, r.router
		FROM routes r JOIN services s ON s.id = r.service_id`)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	for rows.Next() {
		var r graph.Route
		if err := rows.Scan(&r.Service, &r.ChunkID, &r.Repo, &r.File, &r.Line, &r.Method, &r.Path, &r.Framework, &r.Handler, &r.Router); err != nil {
			rows.Close()
			return nil, db.wrap(what, err)
		}
		g.Routes = append(g.Routes, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, db.wrap(what, err)
	}
	g.Sort()
	return g, nil
}

// Routes returns the server routes of the index, ordered by repository,
// file and line.
func (db *DB) Routes(ctx context.Context) ([]core.RouteAt, error) {
	rows, err := db.pool.Query(ctx, `SELECT chunk_id, repo_name, file_path, line, method, path, framework, handler, router
		FROM routes ORDER BY repo_name, file_path, line, method, path`)
	if err != nil {
		return nil, db.wrap("read routes from", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.RouteAt, error) {
		var x core.RouteAt
		err := r.Scan(&x.ChunkID, &x.Repo, &x.File, &x.Line, &x.Method, &x.Path, &x.Framework, &x.Handler, &x.Router)
		return x, err
	})
	return out, db.wrap("read routes from", err)
}

// Calls returns the outbound calls of the index with the scope of the
// chunk each is in, ordered by repository, file and line.
func (db *DB) Calls(ctx context.Context) ([]core.CallAt, error) {
	rows, err := db.pool.Query(ctx, `SELECT k.chunk_id, k.repo_name, k.file_path, coalesce(c.context_prefix, ''),
		k.line, k.kind, k.system, k.method, k.target, k.origin, k.base, k.env, k.config, k.default_value, k.client, k.text
		FROM calls k LEFT JOIN chunks c ON c.id = k.chunk_id
		ORDER BY k.repo_name, k.file_path, k.line, k.kind, k.target, k.id`)
	if err != nil {
		return nil, db.wrap("read calls from", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.CallAt, error) {
		var c core.CallAt
		var kind, origin string
		err := r.Scan(&c.ChunkID, &c.Repo, &c.File, &c.Scope, &c.Line, &kind, &c.System, &c.Method, &c.Target, &origin,
			&c.Base, &c.Env, &c.Config, &c.Default, &c.Client, &c.Text)
		c.Kind, c.Origin = core.CallKind(kind), core.Origin(origin)
		return c, err
	})
	return out, db.wrap("read calls from", err)
}

// Resources returns what the deploy and config files of the index
// declare, ordered by repository, file and line.
func (db *DB) Resources(ctx context.Context) ([]core.ResourceAt, error) {
	rows, err := db.pool.Query(ctx, `SELECT chunk_id, repo_name, file_path, body FROM resources ORDER BY repo_name, file_path, line, id`)
	if err != nil {
		return nil, db.wrap("read resources from", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.ResourceAt, error) {
		var x core.ResourceAt
		var body string
		if err := r.Scan(&x.ChunkID, &x.Repo, &x.File, &body); err != nil {
			return x, err
		}
		if err := json.Unmarshal([]byte(body), &x.Resource); err != nil {
			return x, fmt.Errorf("resource of %s/%s: %w", x.Repo, x.File, err)
		}
		return x, nil
	})
	return out, db.wrap("read resources from", err)
}

// Bindings returns the values code gives fields and constructor
// parameters, ordered by repository, file and line.
func (db *DB) Bindings(ctx context.Context) ([]core.BindingAt, error) {
	rows, err := db.pool.Query(ctx, `SELECT chunk_id, repo_name, file_path, body FROM bindings ORDER BY repo_name, file_path, line, id`)
	if err != nil {
		return nil, db.wrap("read bindings from", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.BindingAt, error) {
		var x core.BindingAt
		var body string
		if err := r.Scan(&x.ChunkID, &x.Repo, &x.File, &body); err != nil {
			return x, err
		}
		if err := json.Unmarshal([]byte(body), &x.Binding); err != nil {
			return x, fmt.Errorf("binding of %s/%s: %w", x.Repo, x.File, err)
		}
		return x, nil
	})
	return out, db.wrap("read bindings from", err)
}

// FilePaths returns every indexed file as repo and path, ordered.
func (db *DB) FilePaths(ctx context.Context) ([][2]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT s.repo_name, f.path FROM files f JOIN sources s ON s.id = f.source_id ORDER BY 1, 2`)
	if err != nil {
		return nil, db.wrap("read files from", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var x [2]string
		err := r.Scan(&x[0], &x[1])
		return x, err
	})
	return out, db.wrap("read files from", err)
}

// GoImports returns the import paths of the Go files other than tests,
// by repository and path (graph.Input.GoImports).
func (db *DB) GoImports(ctx context.Context) (map[[2]string][]string, error) {
	rows, err := db.pool.Query(ctx, chunkrow.GoImportsSQL)
	if err != nil {
		return nil, db.wrap("read Go imports from", err)
	}
	defer rows.Close()
	out, err := chunkrow.ScanImports(rows)
	return out, db.wrap("read Go imports from", err)
}

// ServiceNames returns the names of the services the index knows: those
// of its deploy chunks in files that declare the system
// (core.DeclaresSystem) and of the service graph's nodes but the
// unresolved targets, sorted.
func (db *DB) ServiceNames(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT DISTINCT service_name, file_path FROM chunks WHERE corpus_type = $1 AND service_name <> ''
		UNION SELECT name, '' FROM services WHERE kind <> 'unresolved'`, string(core.CodeDeploy))
	if err != nil {
		return nil, db.wrap("read service names from", err)
	}
	names, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (core.NameAt, error) {
		var n core.NameAt
		err := row.Scan(&n.Name, &n.File)
		return n, err
	})
	if err != nil {
		return nil, db.wrap("read service names from", err)
	}
	return core.SystemNames(names), nil
}

// scopeSQL narrows a query over chunks c to the chunks of the files this
// link phase handles (see GraphDirty), for ingest.LinkNew.
func (db *DB) scopeSQL(scope ingest.LinkScope, a *args) string {
	if scope == ingest.LinkNew {
		return ` AND c.file_id = ANY(` + a.add(db.linkingFiles()) + `::bigint[])`
	}
	return ""
}

// AssignOwners gives every code and config chunk in scope, and every
// Dockerfile's, the service one of whose folders holds it (service_dirs: the deepest folder, or the file
// itself, of a service of the same source; a service's "." owns the rest
// of it, one without folders none). It returns how many chunks changed
// owner.
func (db *DB) AssignOwners(ctx context.Context, scope ingest.LinkScope) (int, error) {
	var a args
	tag, err := db.pool.Exec(ctx, `UPDATE chunks c SET service_name = o.owner FROM (
		SELECT c.pk, coalesce((SELECT s.name FROM service_dirs d JOIN services s ON s.id = d.service_id
			WHERE s.kind = 'service' AND d.repo_name = c.repo_name
			  AND (d.path = '.' OR c.file_path = d.path OR starts_with(c.file_path, d.path || '/'))
			ORDER BY d.path = '.', length(d.path) DESC, s.name LIMIT 1), '') AS owner
		FROM chunks c WHERE (c.corpus_type IN ('CODE_LOGIC', 'CODE_CONFIG') OR c.language = 'dockerfile')`+db.scopeSQL(scope, &a)+`) o
		WHERE c.pk = o.pk AND c.service_name IS DISTINCT FROM o.owner`, a...)
	if err != nil {
		return 0, db.wrap("assign chunk owners in", err)
	}
	return int(tag.RowsAffected()), nil
}

// UpdateMentions runs find over the repository, file path and text of every chunk in scope of the
// given corpus types and records the services it returns: all of them in
// the chunk's meta "services", the first as its service_name unless the
// chunk names its own service. It returns how many chunks changed.
func (db *DB) UpdateMentions(ctx context.Context, corpora []core.CorpusType, scope ingest.LinkScope, find func(repo, file, text string) []string) (int, error) {
	if len(corpora) == 0 {
		return 0, nil
	}
	what := "record service mentions in"
	cs := make([]string, len(corpora))
	for i, c := range corpora {
		cs[i] = string(c)
	}
	a := args{cs}
	rows, err := db.pool.Query(ctx, `SELECT pk, repo_name, file_path, text, meta, service_name FROM chunks c WHERE corpus_type = ANY($1::text[])`+db.scopeSQL(scope, &a), a...)
	if err != nil {
		return 0, db.wrap(what, err)
	}
	var b pgx.Batch
	for rows.Next() {
		var pk int64
		var repo, file, text, metaJSON, service string
		if err := rows.Scan(&pk, &repo, &file, &text, &metaJSON, &service); err != nil {
			rows.Close()
			return 0, db.wrap(what, err)
		}
		meta := map[string]string{}
		json.Unmarshal([]byte(metaJSON), &meta)
		found := find(repo, file, text)
		newService := service
		if service == "" || meta["service_from"] == "mention" {
			newService = ""
			delete(meta, "service_from")
			if len(found) > 0 {
				newService = found[0]
				meta["service_from"] = "mention"
			}
		}
		if len(found) > 0 {
			meta["services"] = strings.Join(found, ", ")
		} else {
			delete(meta, "services")
		}
		if m := chunkrow.Map(meta); m != metaJSON || newService != service {
			b.Queue(`UPDATE chunks SET meta = $1, service_name = $2 WHERE pk = $3`, m, newService, pk)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, db.wrap(what, err)
	}
	if b.Len() == 0 {
		return 0, nil
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return 0, db.wrap(what, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return 0, db.wrap(what, err)
	}
	return b.Len(), db.wrap(what, tx.Commit(ctx))
}

// Unlinked reports whether some files wait for the link phase.
func (db *DB) Unlinked(ctx context.Context) (bool, error) {
	var n bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM files WHERE NOT linked)`).Scan(&n)
	return n, db.wrap("read the link state of", err)
}

// MarkLinked records that every file's chunks have their owners and
// mentions and the graph is up to date, under key; the graph stays dirty
// if a source committed since GraphDirty looked.
func (db *DB) MarkLinked(ctx context.Context, key string) error {
	what := "mark files linked in"
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.wrap(what, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, graphLockSQL); err != nil {
		return db.wrap(what, err)
	}
	if _, err := tx.Exec(ctx, `UPDATE files SET linked = true WHERE id = ANY($1::bigint[])`, db.linkingFiles()); err != nil {
		return db.wrap(what, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM meta WHERE key = 'graph_dirty' AND value = $1`, db.seenDirty()); err != nil {
		return db.wrap(what, err)
	}
	if err := setMeta(ctx, tx, "link_key", key); err != nil {
		return db.wrap(what, err)
	}
	return db.wrap(what, tx.Commit(ctx))
}

// LinkKey returns a digest of what chunk owners and mentions depend on
// besides each chunk's own content (every service with its kind,
// repository and directory, and the names ServiceNames lists) and the key
// the last MarkLinked recorded.
func (db *DB) LinkKey(ctx context.Context) (current, last string, err error) {
	h := sha256.New()
	rows, err := db.pool.Query(ctx, `SELECT name, kind, repo_name, directory FROM services ORDER BY name`)
	if err != nil {
		return "", "", db.wrap("read the link state of", err)
	}
	for rows.Next() {
		var name, kind, repo, dir string
		if err := rows.Scan(&name, &kind, &repo, &dir); err != nil {
			rows.Close()
			return "", "", db.wrap("read the link state of", err)
		}
		fmt.Fprintf(h, "%s\t%s\t%s\t%s\n", name, kind, repo, dir)
	}
	rows.Close()
	names, err := db.ServiceNames(ctx)
	if err != nil {
		return "", "", err
	}
	h.Write([]byte{0})
	for _, n := range names {
		fmt.Fprintf(h, "%s\n", n)
	}
	last, err = db.meta(ctx, db.pool, "link_key")
	return hex.EncodeToString(h.Sum(nil)), last, db.wrap("read the link state of", err)
}
