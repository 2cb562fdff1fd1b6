package ask

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"unicode"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/llm"
	"coderag/core/pack"
)

// DefaultPipeline is the pipeline coderag ask runs unless given another:
// route the question to a retrieval mode, pack the evidence, answer, and
// fetch more (at most max_turn_loops times) when the answer asks for it.
//
//go:embed default.yaml
var DefaultPipeline []byte

// Chatter is a language model; *llm.Client is one.
type Chatter interface {
	Chat(ctx context.Context, msgs []llm.Message, onDelta func(string)) (llm.Reply, error)
}

// Deps are what the actions work with.
type Deps struct {
	// Search runs hybrid search; Searchers, by mode (bm25, semantic),
	// the others (Search stands in for a mode they lack).
	Search    pack.Searcher
	Searchers map[string]pack.Searcher
	Store     pack.Store
	Graph     *graph.Graph // may be nil
	Model     Chatter
	// OnAnswer receives the answer's text as it streams (nil: none).
	OnAnswer func(string)
	// History keeps the turns of Session (none when either is empty).
	History History
	Session string
}

// Turn is one question and its answer in a session.
type Turn struct {
	Question, Answer, Mode string
}

// History stores the turns of ask sessions; sqlite.DB is one.
type History interface {
	Turns(ctx context.Context, session string, n int) ([]Turn, error)
	AddTurn(ctx context.Context, session string, t Turn) error
}

// State is a run's state, which the actions read and write.
type State struct {
	Question string
	// Mode is the retrieval mode the router chose: hybrid, bm25,
	// semantic or direct.
	Mode string
	// Query is what the next retrieval looks for (the question, or what
	// the answer asked for).
	Query string
	Pack  *pack.Pack
	// Evidence is every pack's rendered text, in order.
	Evidence []string
	Answer   string
	Loops    int
	// Steps are the ids of the steps run, in order.
	Steps []string
	// History are the session's earlier turns the model is shown.
	History []Turn
	// Lang is the question's language ("en" unless translate_in found
	// another); English is the question in English.
	Lang, English string
}

// asked is the question as the model is asked it: in English.
func (s *State) asked() string {
	if s.English != "" {
		return s.English
	}
	return s.Question
}

// Citation is a piece of evidence an answer used.
type Citation struct {
	FilePath  string `json:"file_path"`
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
}

// Chunks are the chunks of the evidence packed last, in order.
func (s *State) Chunks() []core.Chunk {
	var out []core.Chunk
	if s.Pack == nil {
		return out
	}
	for _, f := range s.Pack.Files {
		for _, pc := range f.Pieces {
			out = append(out, pc.Chunk)
		}
	}
	return out
}

// Citations are the files and lines of the evidence packed, in order.
func (s *State) Citations() []Citation {
	out := []Citation{}
	if s.Pack == nil {
		return out
	}
	for _, f := range s.Pack.Files {
		for _, pc := range f.Pieces {
			out = append(out, Citation{FilePath: f.Path, LineStart: pc.Chunk.LineStart, LineEnd: pc.Chunk.LineEnd})
		}
	}
	return out
}

// Action runs one step and returns its outcome, which picks the step's
// on_<outcome> transition.
type Action func(ctx context.Context, d *Deps, p Pipeline, st *State, step Step) (string, error)

// Actions are the actions the engine knows, by name.
var Actions = map[string]Action{
	"call_model":             callModel,
	"fetch_more_context":     fetchMoreContext,
	"loop_guard":             loopGuard,
	"finalize":               finalize,
	"translate_in_if_needed": translateIn,
	"expand_dependency_tree": expandDependencyTree,
	"fetch_node_texts":       fetchNodeTexts,
	"check_context_budget":   checkContextBudget,
	"summarize_context":      summarizeContext,
	// seed 002 §10.2's names for the session's turns.
	"load_conversation_history": loadHistory,
	"persist_turn_and_finalize": persistTurn,
}

// loadHistory reads the session's turns since its last summary. When
// they are over settings.max_history_tokens, the model summarizes all but
// the last two against the new question ('SUMMARY:'), the summary is kept
// in the session as a turn of mode "summary" (rolling: the next summary
// starts from it), and the model is shown the summary and the last two.
func loadHistory(ctx context.Context, d *Deps, p Pipeline, st *State, _ Step) (string, error) {
	if d.History == nil || d.Session == "" {
		return "none", nil
	}
	turns, err := d.History.Turns(ctx, d.Session, 200)
	if err != nil {
		return "", err
	}
	// Since the last summary: it, the two turns it left whole (stored
	// before it), and the turns after it.
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Mode == "summary" {
			kept := []Turn{turns[i]}
			for _, t := range turns[max(i-2, 0):i] {
				if t.Mode != "summary" {
					kept = append(kept, t)
				}
			}
			turns = append(kept, turns[i+1:]...)
			break
		}
	}
	used := 0
	for _, t := range turns {
		used += core.EstimateTokens(t.Question) + core.EstimateTokens(t.Answer)
	}
	if used > settingInt(p, "max_history_tokens", 2000) && len(turns) > 2 && d.Model != nil {
		old, recent := turns[:len(turns)-2], turns[len(turns)-2:]
		var b strings.Builder
		for _, t := range old {
			if t.Mode == "summary" {
				fmt.Fprintf(&b, "Summary so far: %s\n", t.Answer)
				continue
			}
			fmt.Fprintf(&b, "Q: %s\nA: %s\n", t.Question, t.Answer)
		}
		out, err := ask(ctx, d.Model, prompts["summarize_history"], "New question: "+st.Question+"\n\nEarlier conversation:\n"+b.String(), nil, "SUMMARY:")
		if err != nil {
			return "", err
		}
		sum := Turn{Question: "(the conversation so far)", Answer: out["SUMMARY:"], Mode: "summary"}
		if err := d.History.AddTurn(ctx, d.Session, sum); err != nil {
			return "", err
		}
		turns = append([]Turn{sum}, recent...)
	}
	st.History = turns
	if len(turns) == 0 {
		return "none", nil
	}
	return "ok", nil
}

// persistTurn finalizes the run and records the turn in the session.
func persistTurn(ctx context.Context, d *Deps, p Pipeline, st *State, s Step) (string, error) {
	if _, err := finalize(ctx, d, p, st, s); err != nil {
		return "", err
	}
	if d.History == nil || d.Session == "" {
		return "ok", nil
	}
	return "ok", d.History.AddTurn(ctx, d.Session, Turn{Question: st.Question, Answer: st.Answer, Mode: st.Mode})
}

// finalize ends a run: an answer that never came says what was missing.
func finalize(ctx context.Context, d *Deps, _ Pipeline, st *State, _ Step) (string, error) {
	if st.Answer == "" && st.Mode != "direct" {
		st.Answer = "The evidence found does not answer this; the last search was for: " + st.Query
	}
	// Translate out: the answer in the question's language.
	if st.Lang != "" && st.Lang != "en" && d.Model != nil {
		out, err := ask(ctx, d.Model, fmt.Sprintf(prompts["translate_out"], st.Lang), st.Answer, nil, "TRANSLATION:")
		if err != nil {
			return "", err
		}
		st.Answer = out["TRANSLATION:"]
	}
	return "ok", nil
}

// settingStrings reads a list-of-strings setting.
func settingStrings(p Pipeline, key string) []string {
	var out []string
	if vs, ok := p.Settings[key].([]any); ok {
		for _, v := range vs {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// expandDependencyTree adds, for the services of the evidence, their
// neighbours in the service graph within settings.graph_max_depth hops
// (default 1), at most graph_max_nodes (default 12) services, following
// only the edge types of graph_edge_allowlist when it is set.
func expandDependencyTree(_ context.Context, d *Deps, p Pipeline, st *State, _ Step) (string, error) {
	if d.Graph == nil || st.Pack == nil {
		return "none", nil
	}
	depth := settingInt(p, "graph_max_depth", 1)
	maxNodes := settingInt(p, "graph_max_nodes", 12)
	allow := map[string]bool{}
	for _, t := range settingStrings(p, "graph_edge_allowlist") {
		allow[t] = true
	}
	ix := d.Graph.Index(0)
	seen := map[string]bool{}
	var lines []string
	add := func(from string, hops []graph.Hop, dir string) {
		for _, h := range hops {
			if len(seen) >= maxNodes {
				return
			}
			if len(allow) > 0 && !allow[h.Edge.Type] {
				continue
			}
			key := from + dir + h.Service
			if seen[key] {
				continue
			}
			seen[key] = true
			lines = append(lines, fmt.Sprintf("%s %s %s (%s, depth %d)", from, dir, h.Service,
				strings.Join(strings.Fields(h.Edge.Type+" "+h.Edge.Method+" "+h.Edge.Path), " "), h.Depth))
		}
	}
	done := map[string]bool{}
	for _, f := range st.Pack.Files {
		if f.Service == "" || done[f.Service] || d.Graph.Service(f.Service) == nil {
			continue
		}
		done[f.Service] = true
		add(f.Service, ix.Upstream(f.Service, depth), "is called by")
		add(f.Service, ix.Downstream(f.Service, depth), "depends on")
	}
	if len(lines) == 0 {
		return "none", nil
	}
	st.Evidence = append(st.Evidence, "Service graph:\n"+strings.Join(lines, "\n"))
	return "ok", nil
}

// fetchNodeTexts adds the declarations the current query names, by
// identity (symbol), at most settings.node_text_fetch_top_n of them
// (default 3), that the evidence does not hold yet.
func fetchNodeTexts(ctx context.Context, d *Deps, p Pipeline, st *State, _ Step) (string, error) {
	if d.Store == nil {
		return "none", nil
	}
	have := map[string]bool{}
	if st.Pack != nil {
		for _, f := range st.Pack.Files {
			for _, pc := range f.Pieces {
				have[pc.Chunk.ID] = true
			}
		}
	}
	n := settingInt(p, "node_text_fetch_top_n", 3)
	var texts []string
	for _, w := range strings.FieldsFunc(st.Query, func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.') }) {
		if len(texts) >= n || len(w) < 4 || !strings.ContainsFunc(w[1:], unicode.IsUpper) && !strings.Contains(w, "_") {
			continue // identifiers only: camelCase, PascalCase or snake_case
		}
		cs, err := d.Store.SymbolChunks(ctx, w, 3)
		if err != nil {
			return "", err
		}
		for _, c := range cs {
			if !have[c.ID] && len(texts) < n {
				have[c.ID] = true
				texts = append(texts, c.Location()+"\n"+c.Text)
			}
		}
	}
	if len(texts) == 0 {
		return "none", nil
	}
	st.Evidence = append(st.Evidence, "Declarations named in the question:\n"+strings.Join(texts, "\n\n"))
	return "ok", nil
}

// checkContextBudget is the budget gate: ok while the evidence fits
// settings.max_context_tokens, over_limit otherwise.
func checkContextBudget(_ context.Context, _ *Deps, p Pipeline, st *State, _ Step) (string, error) {
	used := 0
	for _, e := range st.Evidence {
		used += core.EstimateTokens(e)
	}
	if used > settingInt(p, "max_context_tokens", pack.DefaultBudget) {
		return "over_limit", nil
	}
	return "ok", nil
}

// summarizeContext has the model summarize the evidence against the
// question ('SUMMARY:', citations kept), replacing it.
func summarizeContext(ctx context.Context, d *Deps, p Pipeline, st *State, _ Step) (string, error) {
	if d.Model == nil {
		return "", fmt.Errorf("no language model configured")
	}
	out, err := ask(ctx, d.Model, prompts["summarize"], "Question: "+st.asked()+"\n\nEvidence:\n"+strings.Join(st.Evidence, "\n"), nil, "SUMMARY:")
	if err != nil {
		return "", err
	}
	st.Evidence = []string{"Summary of the evidence:\n" + out["SUMMARY:"]}
	return "ok", nil
}

// englishWords are words most English questions hold.
var englishWords = map[string]bool{"the": true, "is": true, "are": true, "how": true, "what": true, "why": true, "where": true,
	"does": true, "do": true, "which": true, "when": true, "who": true, "can": true, "to": true, "of": true, "in": true, "a": true}

// looksEnglish reports whether a question is plainly English: almost no
// letters outside ASCII and an English function word.
func looksEnglish(q string) bool {
	ascii, other := 0, 0
	for _, r := range q {
		switch {
		case r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
			ascii++
		case r >= 128 && unicode.IsLetter(r):
			other++
		}
	}
	if other*20 > ascii+other {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if englishWords[w] {
			return true
		}
	}
	return false
}

// translateIn finds the question's language and, when it is not
// English, has the model translate it: retrieval and the model's answer
// work in English, finalize translates the answer back.
func translateIn(ctx context.Context, d *Deps, _ Pipeline, st *State, _ Step) (string, error) {
	st.Lang = "en"
	if looksEnglish(st.Question) || d.Model == nil {
		return "english", nil
	}
	out, err := ask(ctx, d.Model, prompts["translate_in"], st.Question, nil, "LANG:", "TRANSLATION:")
	if err != nil {
		return "", err
	}
	lang := strings.ToLower(strings.Fields(out["LANG:"] + " en")[0])
	if lang == "en" {
		return "english", nil
	}
	st.Lang, st.English, st.Query = lang, out["TRANSLATION:"], out["TRANSLATION:"]
	return "translated", nil
}

// ask calls the model with a system prompt and one user message and
// reads the lines starting with each prefix (the rest of the line, and
// for the last prefix the rest of the reply); a reply missing one is
// asked again once.
func ask(ctx context.Context, m Chatter, system, user string, onDelta func(string), prefixes ...string) (map[string]string, error) {
	msgs := []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}
	for attempt := 0; attempt < 2; attempt++ {
		reply, err := m.Chat(ctx, msgs, onDelta)
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for i, p := range prefixes {
			_, rest, ok := parsePrefix(reply.Text, p)
			if !ok {
				break
			}
			if i < len(prefixes)-1 {
				rest = strings.SplitN(rest, "\n", 2)[0]
			}
			out[p] = strings.TrimSpace(rest)
		}
		if len(out) == len(prefixes) {
			return out, nil
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: reply.Text},
			llm.Message{Role: "user", Content: "Your reply did not follow the format. Reply again with the lines " + strings.Join(prefixes, " and ") + "."})
	}
	return nil, fmt.Errorf("the model's reply broke the protocol (%s) twice", strings.Join(prefixes, " "))
}

// maxSteps bounds a run whatever its transitions (a loop_guard is the
// pipeline's own bound).
const maxSteps = 100

// Run runs the pipeline on a question from its entry step until a step
// has no transition.
func Run(ctx context.Context, p Pipeline, d *Deps, question string) (*State, error) {
	for _, s := range p.Steps {
		if _, ok := Actions[s.Action]; !ok {
			return nil, fmt.Errorf("pipeline %s: step %s: unknown action %q", p.Name, s.ID, s.Action)
		}
	}
	st := &State{Question: question, Query: question, Mode: "hybrid"}
	id := p.EntryStep()
	for n := 0; id != ""; n++ {
		if n == maxSteps {
			return st, fmt.Errorf("pipeline %s: %d steps without an end (%s)", p.Name, maxSteps, strings.Join(st.Steps[len(st.Steps)-5:], " -> "))
		}
		step, ok := p.Step(id)
		if !ok {
			return st, fmt.Errorf("pipeline %s: no step %s", p.Name, id)
		}
		st.Steps = append(st.Steps, id)
		outcome, err := Actions[step.Action](ctx, d, p, st, step)
		if err != nil {
			return st, fmt.Errorf("pipeline %s: step %s (%s): %w", p.Name, step.ID, step.Action, err)
		}
		switch {
		case step.Next != "":
			id = step.Next
		case len(step.On) > 0:
			next, ok := step.On[outcome]
			if !ok {
				return st, fmt.Errorf("pipeline %s: step %s ended %q, and has no on_%s", p.Name, step.ID, outcome, outcome)
			}
			id = next
		default:
			id = ""
		}
	}
	return st, nil
}

// settingInt reads an integer setting.
func settingInt(p Pipeline, key string, def int) int {
	switch v := p.Settings[key].(type) {
	case int:
		return v
	case float64:
		return int(v)
	}
	return def
}

// Prompts by name: the system message of each model call. The protocol
// lines they ask for are parsed strictly (parsePrefix).
var prompts = map[string]string{
	"router": `You route a developer's question about a codebase to a way of finding the answer.
Reply with exactly one line, one of:
MODE: HYBRID    (most questions: behaviour, design, where something happens)
MODE: BM25      (the question names identifiers, error messages, config keys or file names)
MODE: SEMANTIC  (a plain-language question whose words the code may not use)
MODE: SEMANTIC_RERANK  (as SEMANTIC, when many near answers must be told apart)
MODE: DIRECT    (general knowledge, nothing about this codebase)`,
	"summarize_history": `Summarize the earlier conversation between a developer and you for their new question:
keep the facts, file:line citations, services and decisions that bear on it. Reply with: SUMMARY: <the summary>`,
	"summarize": `Summarize the evidence given for the developer's question: keep what bears on it, with its
file:line citations, service names, identifiers and error messages unchanged; drop the rest.
Reply with: SUMMARY: <the summary>`,
	"translate_in": `You find the language of a developer's question and translate it into English.
Reply with two lines:
LANG: <the question's ISO 639-1 language code, en for English>
TRANSLATION: <the question in English; identifiers, file names and error messages unchanged>`,
	"translate_out": `Translate the answer the user gives into the language with ISO 639-1 code %s. Keep code,
identifiers, file:line citations and error messages unchanged. Reply with one line:
TRANSLATION: <the translated answer>`,
	"answer": `You answer a developer's question about a codebase from the evidence given (code, deploy files,
docs, conversations, each with its file and lines, and the services involved). Cite the evidence as
file:line for every claim. Reply in one of two ways:
ANSWER: <the answer, citing file:line>
NEED_MORE_CONTEXT: <what to search for next>   (only when the evidence cannot answer it)`,
}

// parsePrefix finds the first line of text starting with one of the
// prefixes and returns the prefix and the rest of the text from there.
func parsePrefix(text string, prefixes ...string) (string, string, bool) {
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(strings.TrimLeft(line, "*#> "))
		for _, p := range prefixes {
			if strings.HasPrefix(strings.ToUpper(l), p) {
				i := strings.Index(text, line)
				rest := strings.TrimSpace(text[i:])
				rest = strings.TrimSpace(strings.TrimLeft(rest, "*#> "))
				return p, strings.TrimSpace(rest[len(p):]), true
			}
		}
	}
	return "", "", false
}

// callModel asks the model with the step's prompt. The router's outcome
// is the mode; the answer's is ok, or follow_up with the query it asks
// for. A reply that breaks the protocol is asked again once.
func callModel(ctx context.Context, d *Deps, p Pipeline, st *State, step Step) (string, error) {
	if d.Model == nil {
		return "", fmt.Errorf("no language model configured (--llm-url, --llm-model)")
	}
	name, _ := step.Params["prompt"].(string)
	system, ok := prompts[name]
	if !ok {
		return "", fmt.Errorf("unknown prompt %q (router, answer)", name)
	}
	user := "Question: " + st.asked()
	if name == "answer" && len(st.Evidence) > 0 {
		user = "Evidence:\n" + strings.Join(st.Evidence, "\n") + "\n\n" + user
	}
	msgs := []llm.Message{{Role: "system", Content: system}}
	for _, t := range st.History { // the session so far, oldest first
		msgs = append(msgs, llm.Message{Role: "user", Content: t.Question}, llm.Message{Role: "assistant", Content: t.Answer})
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: user})
	for attempt := 0; attempt < 2; attempt++ {
		var onDelta func(string)
		if name == "answer" && d.OnAnswer != nil {
			onDelta = answerStream(d.OnAnswer)
		}
		reply, err := d.Model.Chat(ctx, msgs, onDelta)
		if err != nil {
			return "", err
		}
		switch name {
		case "router":
			if _, rest, ok := parsePrefix(reply.Text, "MODE:"); ok {
				mode := strings.ToLower(strings.Fields(rest + " hybrid")[0])
				switch mode {
				case "hybrid", "bm25", "semantic", "semantic_rerank", "direct":
					st.Mode = mode
					return mode, nil
				}
			}
		case "answer":
			if pre, rest, ok := parsePrefix(reply.Text, "ANSWER:", "NEED_MORE_CONTEXT:"); ok {
				if pre == "ANSWER:" {
					st.Answer = rest
					return "ok", nil
				}
				st.Query = rest
				return "follow_up", nil
			}
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: reply.Text},
			llm.Message{Role: "user", Content: "Your reply did not follow the format. Reply again, starting with the required prefix."})
	}
	return "", fmt.Errorf("the model's %s reply broke the protocol twice", name)
}

// answerStream forwards an answer's streamed text after its ANSWER:
// prefix, and nothing of a NEED_MORE_CONTEXT: reply.
func answerStream(out func(string)) func(string) {
	var head strings.Builder
	decided, forward := false, false
	return func(piece string) {
		if decided {
			if forward {
				out(piece)
			}
			return
		}
		head.WriteString(piece)
		h := strings.TrimLeft(head.String(), " \n*#>")
		switch {
		case strings.HasPrefix(strings.ToUpper(h), "ANSWER:"):
			decided, forward = true, true
			if rest := strings.TrimLeft(h[len("ANSWER:"):], " "); rest != "" {
				out(rest)
			}
		case strings.HasPrefix(strings.ToUpper(h), "NEED_MORE_CONTEXT:"), len(h) > 20:
			decided = true
		}
	}
}

// fetchMoreContext packs the evidence for the current query with the
// retrieval mode (the step's mode parameter, else the router's), into
// what settings.max_context_tokens leaves after the evidence so far.
func fetchMoreContext(ctx context.Context, d *Deps, p Pipeline, st *State, step Step) (string, error) {
	mode := st.Mode
	if m, ok := step.Params["mode"].(string); ok && m != "" {
		mode = m
	}
	if mode == "direct" {
		return "empty", nil
	}
	// Four fifths of what the evidence so far leaves of the budget (room
	// for the graph and the declarations the next steps add), a quarter
	// of it at least (the gate summarizes when it runs over).
	budget := settingInt(p, "max_context_tokens", pack.DefaultBudget)
	used := 0
	for _, e := range st.Evidence {
		used += core.EstimateTokens(e)
	}
	budget = max((budget-used)*4/5, budget/4)
	s := d.Search
	if m, ok := d.Searchers[mode]; ok {
		s = m
	}
	pk, err := pack.Build(ctx, s, d.Store, d.Graph, st.Query, pack.Options{Budget: budget, Follow: pack.DefaultFollow})
	if err != nil {
		return "", err
	}
	st.Pack = &pk
	st.Evidence = append(st.Evidence, pk.Render())
	if len(pk.Files) == 0 {
		return "empty", nil
	}
	return "ok", nil
}

// loopGuard counts follow-up loops: exhausted once settings.max_turn_loops
// have run.
func loopGuard(_ context.Context, _ *Deps, p Pipeline, st *State, _ Step) (string, error) {
	st.Loops++
	if st.Loops > settingInt(p, "max_turn_loops", 3) {
		return "exhausted", nil
	}
	return "ok", nil
}
