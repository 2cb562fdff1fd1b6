package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"coderag/core/graph"
	"coderag/core/ingest"
)

// WriteGraph replaces the service graph: services, aliases, edges with
// their evidence, and the service of every route. It runs in one
// transaction; readers see the old graph or the new one.
func (db *DB) WriteGraph(ctx context.Context, g *graph.Graph) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("write the service graph to", err)
	}
	defer tx.Rollback()
	// Services keep their ids across rebuilds (matched by name), so that
	// only the routes whose service changed are written again: a large
	// index has tens of thousands of routes and few changes.
	old := map[string]int64{}
	rows, err := tx.QueryContext(ctx, `SELECT name, id FROM services`)
	if err != nil {
		return db.wrap("write the service graph to", err)
	}
	for rows.Next() {
		var name string
		var id int64
		if err := rows.Scan(&name, &id); err != nil {
			rows.Close()
			return db.wrap("write the service graph to", err)
		}
		old[name] = id
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return db.wrap("write the service graph to", err)
	}
	for _, q := range []string{`DELETE FROM edge_evidence`, `DELETE FROM edges`, `DELETE FROM service_aliases`, `DELETE FROM service_declarations`, `DELETE FROM service_dirs`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return db.wrap("write the service graph to", err)
		}
	}
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, q)
		return st
	}
	insSvc := prep(`INSERT INTO services(name, kind, repo_name, directory, language, namespace, ports) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`)
	updSvc := prep(`UPDATE services SET kind = ?, repo_name = ?, directory = ?, language = ?, namespace = ?, ports = ? WHERE id = ?`)
	delSvc := prep(`DELETE FROM services WHERE id = ?`)
	insDecl := prep(`INSERT OR IGNORE INTO service_declarations(service_id, chunk_id, file_path, line) VALUES (?, ?, ?, ?)`)
	insAlias := prep(`INSERT OR IGNORE INTO service_aliases(alias, service_id, kind) VALUES (?, ?, ?)`)
	insDir := prep(`INSERT OR IGNORE INTO service_dirs(service_id, repo_name, path, why) VALUES (?, ?, ?, ?)`)
	insEdge := prep(`INSERT INTO edges(source_id, target_id, type, method, path, url, confidence, handler, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`)
	insEv := prep(`INSERT OR IGNORE INTO edge_evidence(edge_id, chunk_id, file_path, line) VALUES (?, ?, ?, ?)`)
	setRoute := prep(`UPDATE routes SET service_id = ? WHERE id = ?`)
	if err != nil {
		return db.wrap("write the service graph to", err)
	}
	ids := map[string]int64{}
	for _, s := range g.Services {
		ports, _ := json.Marshal(nonNil(s.Ports))
		id, ok := old[s.Name]
		if ok {
			if _, err := updSvc.ExecContext(ctx, s.Kind, s.Repo, s.Directory, s.Language, s.Namespace, string(ports), id); err != nil {
				return db.wrap("write service "+s.Name+" to", err)
			}
		} else if err := insSvc.QueryRowContext(ctx, s.Name, s.Kind, s.Repo, s.Directory, s.Language, s.Namespace, string(ports)).Scan(&id); err != nil {
			return db.wrap("write service "+s.Name+" to", err)
		}
		ids[s.Name] = id
		for _, a := range s.Aliases {
			if _, err := insAlias.ExecContext(ctx, a.Name, id, a.Kind); err != nil {
				return db.wrap("write alias "+a.Name+" to", err)
			}
		}
		for _, d := range s.Declared {
			if _, err := insDecl.ExecContext(ctx, id, d.ChunkID, d.Repo+"/"+d.File, d.Line); err != nil {
				return db.wrap("write the declarations of "+s.Name+" to", err)
			}
		}
		for _, d := range s.OwnedDirs() {
			if _, err := insDir.ExecContext(ctx, id, d.Repo, d.Path, d.Why); err != nil {
				return db.wrap("write the folders of "+s.Name+" to", err)
			}
		}
	}
	for name, id := range old {
		if _, keep := ids[name]; keep {
			continue
		}
		// Routes of a removed service lose it (ON DELETE SET NULL).
		if _, err := delSvc.ExecContext(ctx, id); err != nil {
			return db.wrap("remove service "+name+" from", err)
		}
	}
	for _, e := range g.Edges {
		src, ok1 := ids[e.Source]
		dst, ok2 := ids[e.Target]
		if !ok1 || !ok2 {
			return fmt.Errorf("write the service graph to %s: edge %s -> %s names an unknown service", db.path, e.Source, e.Target)
		}
		var id int64
		if err := insEdge.QueryRowContext(ctx, src, dst, e.Type, e.Method, e.Path, e.URL, e.Confidence, e.Handler, e.Via).Scan(&id); err != nil {
			return db.wrap("write edge "+e.Source+" -> "+e.Target+" to", err)
		}
		for _, ev := range e.Evidence {
			if _, err := insEv.ExecContext(ctx, id, ev.ChunkID, ev.Repo+"/"+ev.File, ev.Line); err != nil {
				return db.wrap("write edge evidence to", err)
			}
		}
	}
	if err := writeRouteServices(ctx, tx, setRoute, g.Routes, ids); err != nil {
		return db.wrap("write route services to", err)
	}
	return db.wrap("write the service graph to", tx.Commit())
}

// writeRouteServices gives each route the service the graph says serves
// it, and none to the others, writing only the routes that change.
func writeRouteServices(ctx context.Context, tx *sql.Tx, set *sql.Stmt, routes []graph.Route, ids map[string]int64) error {
	type key struct {
		chunk        string
		line         int
		method, path string
	}
	type row struct {
		id, service int64
		seen        bool
	}
	cur := map[key][]*row{} // one route may be stored twice
	rows, err := tx.QueryContext(ctx, `SELECT id, chunk_id, line, method, path, coalesce(service_id, 0) FROM routes`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var k key
		r := &row{}
		if err := rows.Scan(&r.id, &k.chunk, &k.line, &k.method, &k.path, &r.service); err != nil {
			rows.Close()
			return err
		}
		cur[k] = append(cur[k], r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, rs := range routes {
		want := ids[rs.Service]
		for _, r := range cur[key{rs.ChunkID, rs.Line, rs.Method, rs.Path}] {
			r.seen = true
			if r.service != want {
				if _, err := set.ExecContext(ctx, want, r.id); err != nil {
					return err
				}
				r.service = want
			}
		}
	}
	for _, rs := range cur {
		for _, r := range rs {
			if !r.seen && r.service != 0 {
				if _, err := set.ExecContext(ctx, nil, r.id); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Graph reads the service graph.
func (db *DB) Graph(ctx context.Context) (*graph.Graph, error) {
	g := &graph.Graph{}
	names := map[int64]string{}
	rows, err := db.sql.QueryContext(ctx, `SELECT id, name, kind, repo_name, directory, language, namespace, ports FROM services ORDER BY name`)
	if err != nil {
		return nil, db.wrap("read the service graph from", err)
	}
	idx := map[int64]int{}
	for rows.Next() {
		var s graph.Service
		var id int64
		var ports string
		if err := rows.Scan(&id, &s.Name, &s.Kind, &s.Repo, &s.Directory, &s.Language, &s.Namespace, &ports); err != nil {
			rows.Close()
			return nil, db.wrap("read the service graph from", err)
		}
		json.Unmarshal([]byte(ports), &s.Ports)
		names[id] = s.Name
		idx[id] = len(g.Services)
		g.Services = append(g.Services, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, db.wrap("read the service graph from", err)
	}
	rows, err = db.sql.QueryContext(ctx, `SELECT service_id, alias, kind FROM service_aliases ORDER BY service_id, alias, kind`)
	if err != nil {
		return nil, db.wrap("read the service graph from", err)
	}
	for rows.Next() {
		var id int64
		var a graph.Alias
		if err := rows.Scan(&id, &a.Name, &a.Kind); err != nil {
			rows.Close()
			return nil, db.wrap("read the service graph from", err)
		}
		if i, ok := idx[id]; ok {
			g.Services[i].Aliases = append(g.Services[i].Aliases, a)
		}
	}
	rows.Close()
	rows, err = db.sql.QueryContext(ctx, `SELECT service_id, repo_name, path, why FROM service_dirs
		ORDER BY service_id, repo_name, path = '.', length(path) DESC, path`)
	if err != nil {
		return nil, db.wrap("read the service graph from", err)
	}
	for rows.Next() {
		var id int64
		var d graph.Dir
		if err := rows.Scan(&id, &d.Repo, &d.Path, &d.Why); err != nil {
			rows.Close()
			return nil, db.wrap("read the service graph from", err)
		}
		if i, ok := idx[id]; ok {
			g.Services[i].Dirs = append(g.Services[i].Dirs, d)
		}
	}
	rows.Close()
	rows, err = db.sql.QueryContext(ctx, `SELECT d.service_id, d.chunk_id, coalesce(c.repo_name, ''), coalesce(c.file_path, d.file_path), d.line
		FROM service_declarations d LEFT JOIN chunks c ON c.id = d.chunk_id ORDER BY d.service_id, d.rowid`)
	if err != nil {
		return nil, db.wrap("read the service graph from", err)
	}
	for rows.Next() {
		var id int64
		var ev graph.Evidence
		if err := rows.Scan(&id, &ev.ChunkID, &ev.Repo, &ev.File, &ev.Line); err != nil {
			rows.Close()
			return nil, db.wrap("read the service graph from", err)
		}
		if i, ok := idx[id]; ok {
			g.Services[i].Declared = append(g.Services[i].Declared, ev)
		}
	}
	rows.Close()
	rows, err = db.sql.QueryContext(ctx, `SELECT e.id, e.source_id, e.target_id, e.type, e.method, e.path, e.url, e.confidence, e.handler, e.via,
		coalesce(v.chunk_id, ''), coalesce(v.file_path, ''), coalesce(v.line, 0), coalesce(c.repo_name, ''), coalesce(c.file_path, '')
		FROM edges e LEFT JOIN edge_evidence v ON v.edge_id = e.id LEFT JOIN chunks c ON c.id = v.chunk_id
		ORDER BY e.id, v.rowid`)
	if err != nil {
		return nil, db.wrap("read the service graph from", err)
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
			return nil, db.wrap("read the service graph from", err)
		}
		i, ok := edgeIdx[id]
		if !ok {
			e.Source, e.Target = names[src], names[dst]
			i = len(g.Edges)
			edgeIdx[id] = i
			g.Edges = append(g.Edges, e)
		}
		if ev.ChunkID != "" {
			if ev.File == "" { // the chunk is gone; keep the path as written
				ev.File = evPath
			}
			g.Edges[i].Evidence = append(g.Edges[i].Evidence, ev)
		}
	}
	rows.Close()
	rows, err = db.sql.QueryContext(ctx, `SELECT s.name, r.chunk_id, r.repo_name, r.file_path, r.line, r.method, r.path, r.framework, r.handler, r.router
		FROM routes r JOIN services s ON s.id = r.service_id`)
	if err != nil {
		return nil, db.wrap("read the service graph from", err)
	}
	for rows.Next() {
		var r graph.Route
		if err := rows.Scan(&r.Service, &r.ChunkID, &r.Repo, &r.File, &r.Line, &r.Method, &r.Path, &r.Framework, &r.Handler, &r.Router); err != nil {
			rows.Close()
			return nil, db.wrap("read the service graph from", err)
		}
		g.Routes = append(g.Routes, r)
	}
	rows.Close()
	g.Sort()
	return g, nil
}

// AssignOwners gives every code and config chunk, and every Dockerfile's
// (the image a service's folder builds; no Dockerfile declares a service),
// the service one of whose folders holds it (service_dirs: the deepest folder, or the file itself,
// of a service of the same source; a service's "." owns the rest of it,
// and a service without folders owns no code), so
// that service:NAME finds a service's code. Vectors' filter columns follow.
// It returns how many chunks changed owner. With ingest.LinkNew it visits
// only the chunks of files not linked yet (the services did not change).
func (db *DB) AssignOwners(ctx context.Context, scope ingest.LinkScope) (int, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, db.wrap("assign chunk owners in", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT c.pk, coalesce((
			SELECT s.name FROM service_dirs d JOIN services s ON s.id = d.service_id
			WHERE s.kind = 'service' AND d.repo_name = c.repo_name
			  AND (d.path = '.' OR c.file_path = d.path OR c.file_path GLOB d.path || '/*')
			ORDER BY d.path = '.', length(d.path) DESC, s.name LIMIT 1), '') AS owner, c.service_name
		FROM chunks c WHERE (c.corpus_type IN ('CODE_LOGIC', 'CODE_CONFIG') OR c.language = 'dockerfile')`+scopeSQL(scope))
	if err != nil {
		return 0, db.wrap("assign chunk owners in", err)
	}
	type change struct {
		pk    int64
		owner string
	}
	var changes []change
	for rows.Next() {
		var ch change
		var cur string
		if err := rows.Scan(&ch.pk, &ch.owner, &cur); err != nil {
			rows.Close()
			return 0, db.wrap("assign chunk owners in", err)
		}
		if ch.owner != cur {
			changes = append(changes, ch)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, db.wrap("assign chunk owners in", err)
	}
	if len(changes) == 0 {
		return 0, nil
	}
	upd, err := tx.PrepareContext(ctx, `UPDATE chunks SET service_name = ? WHERE pk = ?`)
	if err != nil {
		return 0, db.wrap("assign chunk owners in", err)
	}
	defer upd.Close()
	var updVec *sql.Stmt
	if db.Embedder().ID != "" {
		if updVec, err = tx.PrepareContext(ctx, `UPDATE vec_chunks SET service_name = ? WHERE chunk_pk = ?`); err != nil {
			return 0, db.wrap("assign chunk owners in", err)
		}
		defer updVec.Close()
	}
	for _, ch := range changes {
		if _, err := upd.ExecContext(ctx, ch.owner, ch.pk); err != nil {
			return 0, db.wrap("assign chunk owners in", err)
		}
		if updVec != nil {
			if _, err := updVec.ExecContext(ctx, ch.owner, ch.pk); err != nil {
				return 0, db.wrap("assign chunk owners in", err)
			}
		}
	}
	return len(changes), db.wrap("assign chunk owners in", tx.Commit())
}

// scopeSQL narrows a query over chunks c to the chunks of files not linked
// yet, for ingest.LinkNew.
func scopeSQL(scope ingest.LinkScope) string {
	if scope == ingest.LinkNew {
		return ` AND c.file_id IN (SELECT id FROM files WHERE linked = 0)`
	}
	return ""
}

// GraphDirty reports whether a source changed the facts the service graph
// is built from since the graph was last written.
func (db *DB) GraphDirty(ctx context.Context) (bool, error) {
	var dirty int
	// Migration 0008 marks every database dirty once; after that the key
	// is set with each change that can alter the graph. An index without
	// services (conversations only) is not rebuilt on every crawl.
	err := db.sql.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'graph_dirty')`).Scan(&dirty)
	return dirty == 1, db.wrap("read the graph state of", err)
}

// Unlinked reports whether some files wait for the link phase.
func (db *DB) Unlinked(ctx context.Context) (bool, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM files WHERE linked = 0)`).Scan(&n)
	return n == 1, db.wrap("read the link state of", err)
}

// MarkLinked records that every file's chunks have their owners and
// mentions and the graph is up to date, with the LinkKey they were
// computed under; until then a killed crawl leaves the work for the next
// one.
func (db *DB) MarkLinked(ctx context.Context, key string) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("mark files linked in", err)
	}
	defer tx.Rollback()
	for _, q := range []string{`UPDATE files SET linked = 1 WHERE linked = 0`, `DELETE FROM meta WHERE key = 'graph_dirty'`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return db.wrap("mark files linked in", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES ('link_key', ?)`, key); err != nil {
		return db.wrap("mark files linked in", err)
	}
	return db.wrap("mark files linked in", tx.Commit())
}

// LinkKey returns a digest of what chunk owners and mentions depend on
// besides each chunk's own content — every service with its kind,
// repository and directory, and the names ServiceNames lists — and the
// key the last MarkLinked recorded ("" if none). While the two are equal,
// only chunks of files not linked yet need their owners and mentions.
func (db *DB) LinkKey(ctx context.Context) (current, last string, err error) {
	h := sha256.New()
	rows, err := db.query(ctx, `SELECT name, kind, repo_name, directory FROM services ORDER BY name`)
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
	if err := rows.Err(); err != nil {
		return "", "", db.wrap("read the link state of", err)
	}
	names, err := db.ServiceNames(ctx)
	if err != nil {
		return "", "", err
	}
	h.Write([]byte{0})
	for _, n := range names {
		fmt.Fprintf(h, "%s\n", n)
	}
	err = db.sql.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'link_key'), '')`).Scan(&last)
	return hex.EncodeToString(h.Sum(nil)), last, db.wrap("read the link state of", err)
}
