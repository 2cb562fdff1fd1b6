package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"coderag/core"
	"coderag/core/codetok"
	"coderag/core/search"
	"coderag/sqlite"
)

type queryOptions struct {
	db   *string
	k    int
	json bool
}

const queryLong = `Query searches the index and prints the best chunks, best first.

Words are matched against two full-text indexes, a code-aware one and a
stemmed one for prose, and the two BM25 rankings are fused with reciprocal
rank fusion. An identifier matches itself in any naming convention
(getUserProfile, GetUserProfile, get_user_profile and GET-USER-PROFILE are
one token) and, when that is cheap, longer identifiers containing its words
(UserProfile finds getUserProfile). Separate words match separately: "user
profile" typed as two words finds chunks with either, best with both.

Any text is accepted: operators and punctuation are searched as plain text;
"double quotes" keep a phrase together. In a large index, words found in
most chunks (err, ctx, return) are left out of longer queries; the result
says so.

With --json the result is
  {"hits":[{"chunk_id","file_path","line_start","line_end","corpus_type",
            "language","symbol_name","repo_name","service_name","score","text",...}]}`

func newQueryCmd(io *ioStreams, db *string) *cobra.Command {
	o := &queryOptions{db: db}
	cmd := &cobra.Command{
		Use:   "query [flags] TEXT...",
		Short: "Search the index",
		Long:  queryLong,
		Example: `  coderag query getUserProfile
  coderag query "checkout service returns 503"
  coderag query -k 3 --json http.Get | jq '.hits[].file_path'`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return queryRun(cmd, io, o, strings.Join(args, " ")) },
	}
	cmd.Flags().IntVarP(&o.k, "k", "k", 10, "number of results")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the result as JSON")
	return cmd
}

// jsonHit is one hit of `coderag query --json`. Fields are only ever added.
type jsonHit struct {
	ChunkID       string          `json:"chunk_id"`
	FilePath      string          `json:"file_path"`
	LineStart     int             `json:"line_start"`
	LineEnd       int             `json:"line_end"`
	CorpusType    string          `json:"corpus_type"`
	Language      string          `json:"language"`
	SymbolName    string          `json:"symbol_name"`
	RepoName      string          `json:"repo_name"`
	ServiceName   string          `json:"service_name"`
	Score         float64         `json:"score"`
	Text          string          `json:"text"`
	ContextPrefix string          `json:"context_prefix"`
	Lists         []core.ListRank `json:"lists"`
}

func queryRun(cmd *cobra.Command, io *ioStreams, o *queryOptions, text string) error {
	if err := positiveInt("k", o.k); err != nil {
		return err
	}
	ctx := cmd.Context()
	db, err := sqlite.Open(ctx, *o.db, sqlite.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := search.New(db, search.Options{}).Search(ctx, search.Query{Text: text, K: o.k})
	if err != nil {
		return err
	}
	if o.json {
		out := struct {
			Query   string    `json:"query"`
			TookMS  float64   `json:"took_ms"`
			Dropped []string  `json:"dropped_terms,omitempty"`
			Hits    []jsonHit `json:"hits"`
		}{Query: text, TookMS: float64(res.Took.Microseconds()) / 1000, Dropped: res.Dropped, Hits: []jsonHit{}}
		for _, h := range res.Hits {
			c := h.Chunk
			out.Hits = append(out.Hits, jsonHit{ChunkID: c.ID, FilePath: c.FilePath, LineStart: c.LineStart, LineEnd: c.LineEnd,
				CorpusType: string(c.Corpus), Language: c.Language, SymbolName: c.SymbolName, RepoName: c.RepoName,
				ServiceName: c.ServiceName, Score: h.Score, Text: c.Text, ContextPrefix: c.ContextPrefix, Lists: h.Lists})
		}
		enc := json.NewEncoder(io.out)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(io.out, "no results for %q\n", text)
		return nil
	}
	st := styles(io.color)
	words := map[string]bool{}
	for _, w := range codetok.Words(text) {
		words[w] = true
	}
	for i, h := range res.Hits {
		c := h.Chunk
		loc := c.Location()
		sym := ""
		if c.SymbolName != "" {
			sym = "  " + c.SymbolName
		}
		fmt.Fprintf(io.out, "%2d. %s %s%s  %s\n", i+1, st.badge(c.Corpus), st.bold(loc), sym, st.dim(fmt.Sprintf("%.4f", h.Score)))
		for _, l := range excerpt(c, words, 3) {
			n := "      │"
			if c.Verbatim() {
				n = fmt.Sprintf("%5d │", l.n)
			}
			fmt.Fprintf(io.out, "    %s %s\n", st.dim(n), l.text)
		}
	}
	summary := fmt.Sprintf("%s in %.1f ms", plural(len(res.Hits), "result", "results"), float64(res.Took.Microseconds())/1000)
	if len(res.Dropped) > 0 {
		summary += fmt.Sprintf("; ignored terms found in most chunks: %s", strings.Join(res.Dropped, " "))
	}
	fmt.Fprintln(io.out, st.dim(summary))
	return nil
}

type excerptLine struct {
	n    int
	text string
}

// excerpt picks up to n lines of the chunk around the line that matches
// the most query words.
func excerpt(c core.Chunk, words map[string]bool, n int) []excerptLine {
	lines := strings.Split(c.Text, "\n")
	best, bestScore := 0, -1
	for i, l := range lines {
		score := 0
		for _, w := range codetok.Words(l) {
			if words[w] {
				score++
			}
		}
		if score > bestScore && strings.TrimSpace(l) != "" {
			best, bestScore = i, score
		}
	}
	from := max(0, best-1)
	if bestScore <= 0 {
		from = 0
	}
	for from < best && strings.TrimSpace(lines[from]) == "" {
		from++
	}
	var out []excerptLine
	for i := from; i < len(lines) && len(out) < n; i++ {
		t := strings.TrimRight(lines[i], "\r")
		if len(t) > 160 {
			cut := 157
			for cut > 0 && !utf8.RuneStart(t[cut]) {
				cut--
			}
			t = t[:cut] + "..."
		}
		out = append(out, excerptLine{c.LineStart + i, t})
	}
	return out
}

// textStyles renders with ANSI codes, or plainly when colour is off.
type textStyles struct{ on bool }

func styles(on bool) textStyles { return textStyles{on} }

func (s textStyles) wrap(code, t string) string {
	if !s.on {
		return t
	}
	return "\x1b[" + code + "m" + t + "\x1b[0m"
}

func (s textStyles) bold(t string) string { return s.wrap("1", t) }
func (s textStyles) dim(t string) string  { return s.wrap("2", t) }

func (s textStyles) badge(c core.CorpusType) string {
	t := fmt.Sprintf("[%s]", c.Short())
	switch c {
	case core.CodeLogic:
		return s.wrap("36", t)
	case core.CodeDeploy, core.CodeConfig:
		return s.wrap("35", t)
	case core.DocRunbook:
		return s.wrap("31", t)
	case core.ConvoSlack, core.ConvoTranscript, core.ConvoOther:
		return s.wrap("33", t)
	}
	return s.wrap("32", t)
}
