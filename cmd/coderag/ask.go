package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"coderag/core"
	"coderag/core/ask"
	"coderag/core/llm"
	"coderag/core/pack"
	"coderag/core/search"
)

type askOptions struct {
	db               *string
	llmURL, llmModel string
	pipeline         string
	session          string
	json             bool
	embed            embedFlags
	rerank           rerankFlags
}

const askLong = `Ask answers a question about the indexed code with a language model, through
a YAML pipeline (seed 002): the model routes the question to a retrieval
mode (hybrid, bm25, semantic, or direct for general knowledge), the
evidence is packed as by 'coderag context' (with the services involved),
the model answers citing file:line, and when it asks for more context
another search runs (at most max_turn_loops times). The answer streams to
standard output, followed by the evidence it was given.

The model is any OpenAI-compatible chat completions server (llama.cpp,
vLLM, Ollama's /v1, LM Studio, hosted APIs): --llm-url and --llm-model, or
CODERAG_LLM_URL and CODERAG_LLM_MODEL; a key in CODERAG_LLM_KEY.

--pipeline FILE runs another pipeline; it may extend the default
(pipeline.extends: default) or other files beside it (NAME.yaml). --json
prints {"answer","mode","loops","citations":[{"file_path","line_start",
"line_end"}],"steps","session"}.

--session NAME continues a conversation: its turns are kept in the
database and shown to the model; when they run over max_history_tokens the
model summarizes all but the last two (the summary is kept, rolling).

A question that is not plainly English is translated into English by the
model for retrieval and answering, and the answer translated back.

The default pipeline (core/ask/default.yaml) also adds the evidence's
services' neighbours in the service graph and the declarations the
question names, and summarizes the evidence when follow-up searches take
it over max_context_tokens.
`

func newAskCmd(io *ioStreams, db *string) *cobra.Command {
	o := &askOptions{db: db}
	cmd := &cobra.Command{
		Use:   "ask [flags] QUESTION...",
		Short: "Answer a question about the code with a language model, citing the evidence",
		Long:  askLong,
		Example: `  coderag ask --llm-url http://localhost:8080 --llm-model qwen2.5-coder "why does checkout return 502?"
  CODERAG_LLM_URL=http://localhost:11434/v1 CODERAG_LLM_MODEL=llama3.1 coderag ask --json "where are carts stored?"
  coderag ask - < panic.txt            (the question from standard input: a pasted stack trace)`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := argText(cmd, args)
			if err != nil {
				return err
			}
			return askRun(cmd, io, o, text)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.llmURL, "llm-url", os.Getenv("CODERAG_LLM_URL"), "the OpenAI-compatible server (base URL, .../v1 or .../v1/chat/completions)")
	f.StringVar(&o.llmModel, "llm-model", os.Getenv("CODERAG_LLM_MODEL"), "the model the server serves")
	f.StringVar(&o.pipeline, "pipeline", "", "a pipeline YAML file (default: the built-in one)")
	f.StringVar(&o.session, "session", "", "continue (or start) the conversation of this name: its earlier turns are shown to the model, this one is kept")
	f.BoolVar(&o.json, "json", false, "print the answer, mode, loops and citations as JSON")
	o.embed.register(f, true)
	o.rerank.register(f)
	return cmd
}

// pipelineReader reads pipelines by name: "default" is the built-in one,
// a path is a file, another name is NAME.yaml beside the first file.
func pipelineReader(dir string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if name == "default" {
			return ask.DefaultPipeline, nil
		}
		p := name
		if !strings.ContainsAny(name, "/\\") && !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
			p = filepath.Join(dir, name+".yaml")
		}
		return os.ReadFile(p)
	}
}

// askSetup builds what the ask pipeline needs over an opened index: the
// pipeline (the built-in one, or the file at pipelinePath) and the
// dependencies (a search per retrieval mode, the graph, the session
// history, the model). Warnings are the pipeline's.
func askSetup(ctx context.Context, env *searchEnv, chat *llm.Client, pipelinePath string) (ask.Pipeline, *ask.Deps, []string, error) {
	name, dir := "default", "."
	if pipelinePath != "" {
		name, dir = pipelinePath, filepath.Dir(pipelinePath)
	}
	p, warnings, err := ask.Load(name, pipelineReader(dir))
	if err != nil {
		return p, nil, nil, err
	}
	searchers := map[string]pack.Searcher{
		"bm25": search.New(env.db, search.Options{Params: env.params, Reranker: env.rr, PathPriority: env.pathPriority}),
	}
	if env.emb != nil {
		// SEMANTIC: vectors alone, as they rank; SEMANTIC_RERANK: the
		// vectors' best reranked.
		searchers["semantic"] = search.New(env.db, search.Options{Params: env.params, Embedder: env.emb, NoBM25: true})
		searchers["semantic_rerank"] = search.New(env.db, search.Options{Params: env.params, Embedder: env.emb, NoBM25: true, Reranker: env.rr})
	}
	g, err := env.db.Graph(ctx)
	if err != nil {
		return p, nil, nil, err
	}
	return p, &ask.Deps{Search: env.eng, Searchers: searchers, Store: env.db, Graph: g, Model: chat, History: env.db}, warnings, nil
}

// newChat is the model client the --llm flags name (a usage error when
// they are missing).
func newChat(url, model string) (*llm.Client, error) {
	c, err := llm.New(llm.Options{URL: url, Model: model, APIKey: os.Getenv("CODERAG_LLM_KEY")})
	if err != nil {
		return nil, usagef("%v", err)
	}
	return c, nil
}

func askRun(cmd *cobra.Command, io *ioStreams, o *askOptions, question string) error {
	ctx := cmd.Context()
	chat, err := newChat(o.llmURL, o.llmModel) // before opening anything
	if err != nil {
		return err
	}
	env, err := openSearch(ctx, *o.db, &o.embed, &o.rerank)
	if err != nil {
		return err
	}
	defer env.db.Close()
	if env.warn != "" {
		fmt.Fprintln(io.err, "coderag: warning: "+env.warn)
	}
	p, d, warnings, err := askSetup(ctx, env, chat, o.pipeline)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(io.err, "coderag: warning: "+w)
	}
	d.Session = o.session
	streamed := false
	if !o.json {
		d.OnAnswer = func(s string) { streamed = true; fmt.Fprint(io.out, core.Printable(s)) }
	}
	st, err := ask.Run(ctx, p, d, question)
	if err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(io.out)
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"answer": st.Answer, "mode": st.Mode, "loops": st.Loops,
			"citations": st.Citations(), "steps": st.Steps, "session": o.session})
	}
	if !streamed {
		fmt.Fprint(io.out, core.Printable(st.Answer))
	}
	fmt.Fprintln(io.out)
	if cs := st.Citations(); len(cs) > 0 {
		fmt.Fprintln(io.out, "\nevidence given to the model:")
		for _, c := range cs {
			fmt.Fprintf(io.out, "  %s:%d-%d\n", core.Printable(c.FilePath), c.LineStart, c.LineEnd)
		}
	}
	return nil
}
