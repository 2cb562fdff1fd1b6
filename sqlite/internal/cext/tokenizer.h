/*
 * tokenizer.h declares the entry points of tokenizer.c used from Go.
 */
#ifndef CODERAG_TOKENIZER_H
#define CODERAG_TOKENIZER_H

/* coderag_token is one token collected by coderag_tokenize_collect. */
typedef struct coderag_token {
  int start, end, colocated, len;
} coderag_token;

/* coderag_tokens collects tokens; text holds token i at i*(128+1). */
typedef struct coderag_tokens {
  coderag_token *items;
  char *text;
  int n, cap;
} coderag_tokens;

/* coderag_register registers the `code` FTS5 tokenizer on every new
 * connection through sqlite3_auto_extension. */
int coderag_register(void);

/* coderag_tokenize runs the tokenizer over text and calls xToken like FTS5;
 * query selects query mode (see core/codetok). */
int coderag_tokenize(void *ctx, int query, const char *text, int n,
                     int (*xToken)(void *, int, const char *, int, int, int));

/* coderag_tokenize_collect tokenizes text into out (for tests). */
int coderag_tokenize_collect(int query, const char *text, int n, coderag_tokens *out);

/* coderag_tokenize_count returns the number of tokens in text (benchmarks). */
int coderag_tokenize_count(const char *text, int n);

/* coderag_tokens_free frees what coderag_tokenize_collect allocated. */
void coderag_tokens_free(coderag_tokens *out);

/* coderag_register_rank adds the coderag_bm25 auxiliary function (rank.c)
 * to FTS5. */
int coderag_register_rank(fts5_api *api);

/* coderag_register_prefilter adds the coderag_prefilter aggregate
 * (hamming.c) to the connection db. */
int coderag_register_prefilter(sqlite3 *db);

/* coderag_lengths_register copies n row lengths for coderag_bm25, each
 * width (2 or 4) bytes, little-endian, length + 1 (0 for a row not held),
 * the i-th of rowid base + i, and returns their handle, or 0 when none is
 * free. */
int coderag_lengths_register(sqlite3_int64 base, int width, const unsigned char *len,
                             sqlite3_int64 n);

/* coderag_lengths_free frees the lengths of handle h. */
void coderag_lengths_free(int h);

#endif
