package chunk

import (
	"strings"
	"time"

	"coderag/core/internal/lazyre"
)

// isoDateRE finds a calendar date written the ISO way (2024-03-14), the
// form changelogs (Keep a Changelog: "## [3.0.0] - 2024-03-14"), ADR
// templates and postmortem headings use.
var isoDateRE = lazyre.New(`\b((?:19|20)\d\d)[-/.](0[1-9]|1[0-2])[-/.](0[1-9]|[12]\d|3[01])\b`)

// dateLineRE is a "Date: ..." line near a document's top: ADR and RFC
// templates ("Date: 2021-03-04", "* Date: ...", "| Date | ... |",
// "**Last updated:** ...").
var dateLineRE = lazyre.New(`(?im)^[\s>*|-]*\**\s*(?:date|last[ -]updated|updated|last[ -]modified|decided|accepted)\s*\**\s*[:|]\s*\**\s*(.+)$`)

// dateLayouts are the other ways a "Date:" line writes a date.
var dateLayouts = []string{"January 2, 2006", "January 2 2006", "2 January 2006", "Jan 2, 2006", "Jan 2 2006", "2 Jan 2006"}

// findDate returns the first date in s as YYYY-MM-DD, or "".
func findDate(s string) string {
	if m := isoDateRE.FindStringSubmatch(s); m != nil {
		d := m[1] + "-" + m[2] + "-" + m[3]
		if _, err := time.Parse("2006-01-02", d); err == nil {
			return d
		}
	}
	s = strings.Trim(strings.TrimSpace(s), "*|_ ")
	if len(s) > 40 {
		s = s[:40]
	}
	for _, l := range dateLayouts {
		for n := len(s); n >= len(l)-2 && n > 0; n-- { // a date followed by other words
			if t, err := time.Parse(l, s[:n]); err == nil {
				return t.Format("2006-01-02")
			}
		}
	}
	return ""
}

// docDate is the date a Markdown document says it was written or last
// changed: front matter (date, updated, last_modified, ...) or a "Date:"
// line among its first 40 lines. Empty when it says none.
func docDate(front map[string]string, body []byte) string {
	for _, k := range []string{"date", "updated", "last_updated", "lastUpdated", "last_modified", "lastmod", "created"} {
		if d := findDate(front[k]); d != "" {
			return d
		}
	}
	head := body
	for i, n := 0, 0; i < len(head); i++ {
		if head[i] == '\n' {
			if n++; n == 40 {
				head = head[:i]
				break
			}
		}
	}
	for _, m := range dateLineRE.FindAllSubmatch(head, -1) {
		if d := findDate(string(m[1])); d != "" {
			return d
		}
	}
	return ""
}

// sectionDate is the date in a chunk's deepest heading that has one ("##
// [3.0.0] - 2024-03-14", "## 2024-03-14: checkout outage"), or "".
func sectionDate(sectionPath string) string {
	parts := strings.Split(sectionPath, " > ")
	for i := len(parts) - 1; i >= 0; i-- {
		if m := isoDateRE.FindString(parts[i]); m != "" {
			if d := findDate(m); d != "" {
				return d
			}
		}
	}
	return ""
}
