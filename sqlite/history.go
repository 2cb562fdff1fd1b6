package sqlite

import (
	"context"
	"time"

	"coderag/core/ask"
)

var _ ask.History = (*DB)(nil)

// Turns returns the turns of an ask session, oldest first, at most the
// last n.
func (db *DB) Turns(ctx context.Context, session string, n int) ([]ask.Turn, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT question, answer, mode FROM (
		SELECT id, question, answer, mode FROM ask_turns WHERE session = ? ORDER BY id DESC LIMIT ?) ORDER BY id`, session, n)
	if err != nil {
		return nil, db.wrap("read session "+session+" from", err)
	}
	defer rows.Close()
	var out []ask.Turn
	for rows.Next() {
		var t ask.Turn
		if err := rows.Scan(&t.Question, &t.Answer, &t.Mode); err != nil {
			return nil, db.wrap("read session "+session+" from", err)
		}
		out = append(out, t)
	}
	return out, db.wrap("read session "+session+" from", rows.Err())
}

// AddTurn records a turn of an ask session.
func (db *DB) AddTurn(ctx context.Context, session string, t ask.Turn) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO ask_turns(session, asked, question, answer, mode) VALUES (?, ?, ?, ?, ?)`,
		session, time.Now().UTC().Format(time.RFC3339), t.Question, t.Answer, t.Mode)
	return db.wrap("record a turn of session "+session+" in", err)
}
