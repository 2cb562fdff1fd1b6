package sqlite

import (
	"context"
	"encoding/json"
	"strings"

	"coderag/core"
	"coderag/core/ingest"
	"coderag/sqlite/internal/chunkrow"
)

// ServiceNames returns the names of the services the index knows: those
// of its deploy chunks (Kubernetes workloads and Services, compose
// services, Helm charts) in files that declare the system
// (core.DeclaresSystem: not a test's manifests) and of the service
// graph's nodes but the unresolved targets (?{client}: a call's
// expression, not a service), sorted.
func (db *DB) ServiceNames(ctx context.Context) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `
		SELECT DISTINCT service_name, file_path FROM chunks WHERE corpus_type = ? AND service_name <> ''
		UNION SELECT name, '' FROM services WHERE kind <> 'unresolved'`, string(core.CodeDeploy))
	if err != nil {
		return nil, db.wrap("read service names from", err)
	}
	defer rows.Close()
	var names []core.NameAt
	for rows.Next() {
		var n core.NameAt
		if err := rows.Scan(&n.Name, &n.File); err != nil {
			return nil, db.wrap("read service names from", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("read service names from", err)
	}
	return core.SystemNames(names), nil
}

// UpdateMentions runs find over the repository, file path and text of every chunk of
// the given corpus types and records the services it returns: all of them in the
// chunk's meta "services", the first as its service_name unless the chunk
// names its own service (a runbook's front matter). It returns how many
// chunks changed. It runs in one transaction. With ingest.LinkNew it
// visits only the chunks of files not linked yet.
func (db *DB) UpdateMentions(ctx context.Context, corpora []core.CorpusType, scope ingest.LinkScope, find func(repo, file, text string) []string) (int, error) {
	if len(corpora) == 0 {
		return 0, nil
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, db.wrap("record service mentions in", err)
	}
	defer tx.Rollback()
	args := make([]any, len(corpora))
	for i, c := range corpora {
		args[i] = string(c)
	}
	rows, err := tx.QueryContext(ctx, `SELECT pk, repo_name, file_path, text, meta, service_name FROM chunks c WHERE corpus_type IN (?`+
		strings.Repeat(",?", len(corpora)-1)+`)`+scopeSQL(scope), args...)
	if err != nil {
		return 0, db.wrap("record service mentions in", err)
	}
	type change struct {
		pk      int64
		meta    string
		service string
	}
	var changes []change
	for rows.Next() {
		var pk int64
		var repo, file, text, metaJSON, service string
		if err := rows.Scan(&pk, &repo, &file, &text, &metaJSON, &service); err != nil {
			rows.Close()
			return 0, db.wrap("record service mentions in", err)
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
		m := chunkrow.Map(meta)
		if m != metaJSON || newService != service {
			changes = append(changes, change{pk, m, newService})
		}
	}
	if err := rows.Close(); err != nil {
		return 0, db.wrap("record service mentions in", err)
	}
	if err := rows.Err(); err != nil {
		return 0, db.wrap("record service mentions in", err)
	}
	stmt, err := tx.PrepareContext(ctx, `UPDATE chunks SET meta = ?, service_name = ? WHERE pk = ?`)
	if err != nil {
		return 0, db.wrap("record service mentions in", err)
	}
	defer stmt.Close()
	for _, c := range changes {
		if _, err := stmt.ExecContext(ctx, c.meta, c.service, c.pk); err != nil {
			return 0, db.wrap("record service mentions in", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, db.wrap("record service mentions in", err)
	}
	return len(changes), nil
}

// Mentions returns the conversation and doc chunks that mention a service
// (or are about it), newest first by their date (see below), at most limit of them, and how many
// there are in all.
func (db *DB) Mentions(ctx context.Context, service string, limit int) ([]core.Chunk, int, error) {
	where := `c.corpus_type IN (?, ?, ?, ?, ?, ?, ?) AND (c.service_name = ? OR
		',' || replace(coalesce(json_extract(c.meta, '$.services'), ''), ', ', ',') || ',' LIKE '%,' || ? || ',%')`
	args := []any{string(core.DocReadme), string(core.DocRunbook), string(core.DocADR), string(core.DocGoogle),
		string(core.ConvoSlack), string(core.ConvoTranscript), string(core.ConvoOther), service, service}
	var total int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM chunks c WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, db.wrap("find mentions of "+service+" in", err)
	}
	// Dated chunks (a message's time, a document's or section's stated
	// date) come first, newest first; then undated documents by their
	// file's modification time (a checkout's is not a date worth putting
	// above a dated incident). The sections of one document keep their
	// order. Of release notes (a changelog names its services in every
	// section) only each file's newest entry keeps its place; the older
	// ones come after the rest.
	rows, err := db.sql.QueryContext(ctx, `WITH m AS (
			SELECT c.pk, json_extract(c.meta, '$.release_notes') IS NOT NULL
				AND row_number() OVER (PARTITION BY c.file_id ORDER BY c.timestamp DESC, c.line_start) > 1 AS older
			FROM chunks c WHERE `+where+`)
		SELECT `+chunkrow.Cols+` FROM chunks c JOIN m ON m.pk = c.pk
		LEFT JOIN files f ON f.id = c.file_id
		ORDER BY m.older, c.timestamp = '', c.timestamp DESC, coalesce(f.mtime, 0) DESC,
			c.source_id, c.file_path, c.line_start LIMIT ?`,
		append(args, limit)...)
	if err != nil {
		return nil, 0, db.wrap("find mentions of "+service+" in", err)
	}
	defer rows.Close()
	var out []core.Chunk
	for rows.Next() {
		c, err := chunkrow.Scan(rows)
		if err != nil {
			return nil, 0, db.wrap("find mentions of "+service+" in", err)
		}
		out = append(out, c)
	}
	return out, total, db.wrap("find mentions of "+service+" in", rows.Err())
}
