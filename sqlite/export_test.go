package sqlite

import (
	"context"
	"fmt"
	"strings"
)

// DumpText returns every row of every table of the database (shadow
// tables of the full-text and vector indexes included) as text, one row a
// string, blobs as their bytes: what a search for planted values must
// not find anything in.
func (db *DB) DumpText(ctx context.Context) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		tables = append(tables, n)
	}
	rows.Close()
	var out []string
	for _, tbl := range tables {
		rs, err := db.sql.QueryContext(ctx, `SELECT * FROM "`+tbl+`"`)
		if err != nil {
			return nil, fmt.Errorf("dump %s: %w", tbl, err)
		}
		cols, _ := rs.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rs.Next() {
			if err := rs.Scan(ptrs...); err != nil {
				rs.Close()
				return nil, fmt.Errorf("dump %s: %w", tbl, err)
			}
			var b strings.Builder
			b.WriteString(tbl)
			for _, v := range vals {
				b.WriteByte('\t')
				switch x := v.(type) {
				case []byte:
					b.Write(x)
				case nil:
				default:
					fmt.Fprint(&b, x)
				}
			}
			out = append(out, b.String())
		}
		rs.Close()
	}
	return out, nil
}

// IndexTerms returns the terms of the full-text indexes (code, prose and
// whole files).
func (db *DB) IndexTerms(ctx context.Context) ([]string, error) {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var out []string
	for _, tbl := range []string{"fts_code", "fts_prose", "fts_files"} {
		v := "temp.vocab_" + tbl
		if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS `+v+` USING fts5vocab(main, '`+tbl+`', 'row')`); err != nil {
			return nil, fmt.Errorf("vocabulary of %s: %w", tbl, err)
		}
		rows, err := conn.QueryContext(ctx, `SELECT term FROM `+v)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var term string
			if err := rows.Scan(&term); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, term)
		}
		rows.Close()
	}
	return out, nil
}
