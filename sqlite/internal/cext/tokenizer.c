/*
 * tokenizer.c: the `code` FTS5 tokenizer of coderag and its registration.
 *
 * The rules are documented in core/codetok/codetok.go; this file mirrors that
 * Go code function for function (cr_decode = decode, cr_class = class, ...)
 * and the two are kept equal by a shared golden table and a differential fuzz
 * test. Change both or neither.
 */
#include <string.h>
#include "sqlite3.h"
#include "tokenizer.h"

#define CR_MAX_TOKEN 128

enum { CL_SEP, CL_CONN, CL_CJK, CL_UNDER, CL_DIGIT, CL_LOWER, CL_UPPER };

static const char *cr_stop_words[] = {
    "a", "an", "and", "as", "async", "await", "break", "case", "catch", "class",
    "const", "continue", "def", "do", "elif", "else", "except",
    "export", "false", "finally", "for", "from", "func", "function", "if",
    "import", "in", "interface", "is", "let", "namespace", "new",
    "nil", "none", "not", "null", "of", "or", "package", "private", "protected",
    "public", "raise", "range", "return", "self", "static", "struct", "switch",
    "the", "this", "throw", "throws", "to", "true", "try", "undefined", "using",
    "var", "void", "while", 0};

/* cr_decode reads one code point at s[i]; invalid input yields -1, length 1. */
static int cr_decode(const unsigned char *s, int n, int i, int *len) {
  unsigned char c = s[i];
  int k, cnt, cp, min;
  if (c < 0x80) {
    *len = 1;
    return c;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    cnt = 2; cp = c & 0x1F; min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    cnt = 3; cp = c & 0x0F; min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    cnt = 4; cp = c & 0x07; min = 0x10000;
  } else {
    *len = 1;
    return -1;
  }
  if (i + cnt > n) {
    *len = 1;
    return -1;
  }
  for (k = 1; k < cnt; k++) {
    unsigned char b = s[i + k];
    if ((b & 0xC0) != 0x80) {
      *len = 1;
      return -1;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    *len = 1;
    return -1;
  }
  *len = cnt;
  return cp;
}

static int cr_lower(int cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 0x20;
  if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 0x20;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 0x20;
  if (cp >= 0x400 && cp <= 0x40F) return cp + 0x50;
  return cp;
}

/* cr_ascii_class is the class of every ASCII byte. */
static const unsigned char cr_ascii_class[128] = {
    /* 0x00-0x2C: separators, then '-' (0x2D) and '.' (0x2E) connect */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, CL_CONN, CL_CONN, 0,
    /* '0'-'9' */
    CL_DIGIT, CL_DIGIT, CL_DIGIT, CL_DIGIT, CL_DIGIT, CL_DIGIT, CL_DIGIT, CL_DIGIT, CL_DIGIT, CL_DIGIT,
    0, 0, 0, 0, 0, 0, 0,
    /* 'A'-'Z' */
    CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER,
    CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER,
    CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER, CL_UPPER,
    0, 0, 0, 0, CL_UNDER, 0,
    /* 'a'-'z' */
    CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER,
    CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER,
    CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER, CL_LOWER,
    0, 0, 0, 0, 0};

/* cr_is_cjk mirrors IsCJK: ideographs, kana, Bopomofo and Hangul. */
static int cr_is_cjk(int cp) {
  if (cp < 0x1100) return 0;
  if (cp <= 0x11FF) return 1;
  if (cp < 0x3040) return 0;
  if (cp <= 0x312F) return 1;
  if (cp >= 0x3130 && cp <= 0x318F) return 1;
  if (cp >= 0x31F0 && cp <= 0x31FF) return 1;
  if (cp >= 0x3400 && cp <= 0x4DBF) return 1;
  if (cp >= 0x4E00 && cp <= 0x9FFF) return 1;
  if (cp >= 0xAC00 && cp <= 0xD7AF) return 1;
  if (cp >= 0xF900 && cp <= 0xFAFF) return 1;
  if (cp >= 0xFF66 && cp <= 0xFFDC) return 1;
  if (cp >= 0x20000 && cp <= 0x3134F) return 1;
  return 0;
}

static int cr_class(int cp) {
  if (cp >= 0 && cp < 0x80) return cr_ascii_class[cp];
  if (cp < 0) return CL_SEP;
  if (cp <= 0xBF || cp == 0xD7 || cp == 0xF7) return CL_SEP;
  if ((cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x2E00 && cp <= 0x2E7F) ||
      (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF0F) ||
      (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
      (cp >= 0xFF5B && cp <= 0xFF65) || (cp >= 0xFFF0 && cp <= 0xFFFF) ||
      (cp >= 0x1F000 && cp <= 0x1FAFF) || (cp >= 0xE0000 && cp <= 0xE007F))
    return CL_SEP;
  if (cr_is_cjk(cp)) return CL_CJK;
  if (cr_lower(cp) != cp) return CL_UPPER;
  return CL_LOWER;
}

#define IS_WORD(cl) ((cl) >= CL_UNDER)

typedef struct cr_state {
  const unsigned char *s;
  int n;
  void *ctx;
  int (*xToken)(void *, int, const char *, int, int, int);
  int rc;
  int query; /* FTS5_TOKENIZE_QUERY: compounds yield their whole token only */
  char buf[CR_MAX_TOKEN + 4];
} cr_state;

/* cr_at returns the class at byte i (separator past the end) and its length. */
static int cr_at(cr_state *t, int i, int *cp, int *len) {
  int c;
  if (i >= t->n) {
    *cp = -1;
    *len = 0;
    return CL_SEP;
  }
  if (t->s[i] < 0x80) {
    *cp = t->s[i];
    *len = 1;
    return cr_ascii_class[t->s[i]];
  }
  c = cr_decode(t->s, t->n, i, len);
  *cp = c;
  return cr_class(c);
}

static int cr_segment_end(cr_state *t, int i) {
  int cp, len;
  while (i < t->n) {
    if (!IS_WORD(cr_at(t, i, &cp, &len))) break;
    i += len;
  }
  return i;
}

static int cr_has_subword(cr_state *t, int i, int end) {
  int cp, len, cl;
  while (i < end) {
    cl = cr_at(t, i, &cp, &len);
    if (cl != CL_UNDER && IS_WORD(cl)) return 1;
    i += len;
  }
  return 0;
}

/* cr_next_subword finds the next subword in [i, end); *start < 0 if none. */
static void cr_next_subword(cr_state *t, int i, int end, int *start, int *stop) {
  int cp, len, prev, cur, ncp, nlen, next, acp, alen, after, plural;
  while (i < end) {
    if (cr_at(t, i, &cp, &len) != CL_UNDER) break;
    i += len;
  }
  if (i >= end) {
    *start = -1;
    *stop = -1;
    return;
  }
  *start = i;
  prev = cr_at(t, i, &cp, &len);
  i += len;
  while (i < end) {
    cur = cr_at(t, i, &cp, &len);
    if (cur == CL_UNDER) break;
    if ((prev == CL_DIGIT) != (cur == CL_DIGIT)) break;
    if (prev == CL_LOWER && cur == CL_UPPER) break;
    if (prev == CL_UPPER && cur == CL_UPPER) {
      next = cr_at(t, i + len, &ncp, &nlen);
      if (next == CL_LOWER && i + len < end) {
        plural = 0;
        if (ncp == 's') {
          after = cr_at(t, i + len + nlen, &acp, &alen);
          plural = after != CL_LOWER || i + len + nlen >= end;
        }
        if (!plural) break;
      }
    }
    prev = cur;
    i += len;
  }
  *stop = i;
}

static int cr_put_utf8(char *b, int cp) {
  if (cp < 0x80) {
    b[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    b[0] = (char)(0xC0 | (cp >> 6));
    b[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    b[0] = (char)(0xE0 | (cp >> 12));
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  b[0] = (char)(0xF0 | (cp >> 18));
  b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  b[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* cr_lower_into lower-cases s[i:j] into t->buf, at most CR_MAX_TOKEN bytes,
 * leaving out '_' and '-' when strip is set (the normalized whole form).
 * It returns the length and sets *cut when the text was longer. */
static int cr_lower_into(cr_state *t, int i, int j, int strip, int *cut) {
  int n = 0, cp, len, l;
  *cut = 0;
  while (i < j) {
    if (strip && (t->s[i] == '_' || t->s[i] == '-')) {
      i++;
      continue;
    }
    if (t->s[i] < 0x80) {
      if (n + 1 > CR_MAX_TOKEN) {
        *cut = 1;
        break;
      }
      l = t->s[i];
      t->buf[n++] = (char)((l >= 'A' && l <= 'Z') ? l + 32 : l);
      i++;
      continue;
    }
    cp = cr_decode(t->s, t->n, i, &len);
    if (n + len > CR_MAX_TOKEN) {
      *cut = 1;
      break;
    }
    if (cp < 0) {
      t->buf[n] = (char)t->s[i];
    } else {
      l = cr_lower(cp);
      if (l == cp) {
        memcpy(t->buf + n, t->s + i, len);
      } else {
        cr_put_utf8(t->buf + n, l);
      }
    }
    n += len;
    i += len;
  }
  return n;
}

/* cr_is_stop reports whether w[0:n] is a stop word: a binary search of the
 * sorted list (stop words are at most 10 bytes). */
static int cr_is_stop(const char *w, int n) {
  int lo = 0, hi = (int)(sizeof(cr_stop_words) / sizeof(cr_stop_words[0])) - 2;
  if (n > 10) return 0;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c;
    const char *s = cr_stop_words[mid];
    int sl = (int)strlen(s);
    c = memcmp(w, s, n < sl ? n : sl);
    if (c == 0) c = n - sl;
    if (c == 0) return 1;
    if (c < 0) hi = mid - 1;
    else lo = mid + 1;
  }
  return 0;
}

/* cr_declared_name reports whether the stop word s[i:j] (lower-cased in
 * t->buf, n bytes) is written as a name (declaredName). */
static int cr_declared_name(cr_state *t, int i, int j, int n) {
  unsigned char c = t->s[i];
  if (c < 'A' || c > 'Z' || n < 2) return 0;
  if ((n == 4 && memcmp(t->buf, "true", 4) == 0) || (n == 5 && memcmp(t->buf, "false", 5) == 0) ||
      (n == 4 && memcmp(t->buf, "none", 4) == 0))
    return 0;
  if (j >= t->n) return 1;
  c = t->s[j];
  return c == '(' || c == '[' || c == '<' || c == ',';
}

static void cr_emit_word(cr_state *t, int i, int j, int alone) {
  int cut, n;
  if (t->rc != SQLITE_OK) return;
  n = cr_lower_into(t, i, j, 0, &cut);
  if (alone && cr_is_stop(t->buf, n) && !cr_declared_name(t, i, j, n)) return;
  t->rc = t->xToken(t->ctx, 0, t->buf, n, i, j);
}

/* cr_emit_whole emits the normalized form of s[i:j] unless it is too long,
 * and returns whether it did. */
static int cr_emit_whole(cr_state *t, int i, int j, int colocated) {
  int cut, n;
  if (t->rc != SQLITE_OK) return 1;
  n = cr_lower_into(t, i, j, 1, &cut);
  if (cut) return 0;
  t->rc = t->xToken(t->ctx, colocated ? FTS5_TOKEN_COLOCATED : 0, t->buf, n, i, j);
  return 1;
}

static int cr_compound(cr_state *t, int start) {
  int cp, len, cl, cp2, len2, cl2;
  int end, first = 1, multi = 0, seg, seg_end, seg_first, p, sw, sw_end;

  end = cr_segment_end(t, start);
  for (;;) {
    cl = cr_at(t, end, &cp, &len);
    if (cl != CL_CONN) break;
    cl2 = cr_at(t, end + len, &cp2, &len2);
    if (!IS_WORD(cl2)) break;
    end = cr_segment_end(t, end + len);
  }

  seg = start;
  while (seg < end && t->rc == SQLITE_OK) {
    seg_end = cr_segment_end(t, seg);
    seg_first = 1;
    p = seg;
    for (;;) {
      cr_next_subword(t, p, seg_end, &sw, &sw_end);
      if (sw < 0) break;
      if (first) {
        multi = cr_has_subword(t, sw_end, end);
        if (!multi) {
          cr_emit_word(t, sw, sw_end, 1);
        } else if (t->query) {
          if (cr_emit_whole(t, start, end, 0)) return end;
          cr_emit_word(t, sw, sw_end, 0);
        } else {
          cr_emit_word(t, sw, sw_end, 0);
          cr_emit_whole(t, start, end, 1);
        }
        first = 0;
      } else {
        cr_emit_word(t, sw, sw_end, 0);
      }
      if (seg_first) {
        seg_first = 0;
        if (multi && !t->query && (seg != start || seg_end != end) &&
            cr_has_subword(t, sw_end, seg_end)) {
          cr_emit_whole(t, seg, seg_end, 1);
        }
      }
      p = sw_end;
    }
    seg = seg_end;
    if (seg < end) {
      cr_at(t, seg, &cp, &len);
      seg += len;
    }
  }
  return end;
}

/* cr_bigrams mirrors bigrams: the overlapping pairs of the run of CJK
 * characters at start (the character alone in a run of one); returns the
 * run's end. */
static int cr_bigrams(cr_state *t, int start) {
  int cp, len, cl, prev, at;
  cr_at(t, start, &cp, &len);
  prev = start;
  at = start + len;
  cl = cr_at(t, at, &cp, &len);
  if (cl != CL_CJK) {
    t->rc = t->xToken(t->ctx, 0, (const char *)t->s + start, at - start, start, at);
    return at;
  }
  while (cl == CL_CJK && t->rc == SQLITE_OK) {
    t->rc = t->xToken(t->ctx, 0, (const char *)t->s + prev, at + len - prev, prev, at + len);
    prev = at;
    at += len;
    cl = cr_at(t, at, &cp, &len);
  }
  return at;
}

int coderag_tokenize(void *ctx, int query, const char *text, int n,
                     int (*xToken)(void *, int, const char *, int, int, int)) {
  cr_state t;
  int i = 0, cp, len, cl;
  t.s = (const unsigned char *)text;
  t.n = n;
  t.ctx = ctx;
  t.xToken = xToken;
  t.rc = SQLITE_OK;
  t.query = query;
  if (text == 0) return SQLITE_OK;
  while (i < n && t.rc == SQLITE_OK) {
    cl = cr_at(&t, i, &cp, &len);
    if (cl == CL_CJK) {
      i = cr_bigrams(&t, i);
      continue;
    }
    if (!IS_WORD(cl)) {
      i += len;
      continue;
    }
    i = cr_compound(&t, i);
  }
  return t.rc;
}

/* ---- FTS5 glue ---------------------------------------------------------- */

static int cr_xcreate(void *unused, const char **azArg, int nArg,
                      Fts5Tokenizer **ppOut) {
  (void)unused;
  (void)azArg;
  if (nArg > 0) return SQLITE_ERROR; /* the code tokenizer takes no options */
  static int handle; /* the tokenizer is stateless: any non-NULL handle */
  *ppOut = (Fts5Tokenizer *)&handle;
  return SQLITE_OK;
}

static void cr_xdelete(Fts5Tokenizer *p) { (void)p; }

static int cr_xtokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *text,
                        int n,
                        int (*xToken)(void *, int, const char *, int, int, int)) {
  (void)p;
  return coderag_tokenize(ctx, (flags & FTS5_TOKENIZE_QUERY) != 0, text, n, xToken);
}

static fts5_api *cr_fts5_api(sqlite3 *db) {
  fts5_api *api = 0;
  sqlite3_stmt *stmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0) != SQLITE_OK) {
    return 0; /* FTS5 not compiled in; sqlite.Open reports it */
  }
  sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", 0);
  sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  return api;
}

static int coderag_ext_init(sqlite3 *db, char **pzErrMsg,
                            const sqlite3_api_routines *pApi) {
  static fts5_tokenizer tok = {cr_xcreate, cr_xdelete, cr_xtokenize};
  fts5_api *api;
  (void)pzErrMsg;
  (void)pApi;
  if (coderag_register_prefilter(db) != SQLITE_OK) return SQLITE_ERROR;
  api = cr_fts5_api(db);
  if (api == 0 || api->iVersion < 2) return SQLITE_OK;
  if (coderag_register_rank(api) != SQLITE_OK) return SQLITE_ERROR;
  return api->xCreateTokenizer(api, "code", 0, &tok, 0);
}

int coderag_register(void) {
  return sqlite3_auto_extension((void (*)(void))coderag_ext_init);
}

/* ---- test support -------------------------------------------------------- */

static int cr_collect(void *ctx, int flags, const char *tok, int n, int s, int e) {
  coderag_tokens *out = (coderag_tokens *)ctx;
  coderag_token *t;
  if (out->n == out->cap) {
    int cap = out->cap ? out->cap * 2 : 64;
    coderag_token *items =
        (coderag_token *)sqlite3_realloc64(out->items, (sqlite3_uint64)cap * sizeof(*items));
    char *text;
    if (!items) return SQLITE_NOMEM;
    out->items = items;
    text = (char *)sqlite3_realloc64(out->text, (sqlite3_uint64)cap * (CR_MAX_TOKEN + 1));
    if (!text) return SQLITE_NOMEM;
    out->text = text;
    out->cap = cap;
  }
  t = &out->items[out->n];
  t->start = s;
  t->end = e;
  t->colocated = (flags & FTS5_TOKEN_COLOCATED) != 0;
  t->len = n;
  memcpy(out->text + (size_t)out->n * (CR_MAX_TOKEN + 1), tok, n);
  out->n++;
  return SQLITE_OK;
}

static int cr_count(void *ctx, int flags, const char *tok, int n, int s, int e) {
  (void)flags;
  (void)tok;
  (void)n;
  (void)s;
  (void)e;
  (*(int *)ctx)++;
  return SQLITE_OK;
}

int coderag_tokenize_count(const char *text, int n) {
  int count = 0;
  coderag_tokenize(&count, 0, text, n, cr_count);
  return count;
}

int coderag_tokenize_collect(int query, const char *text, int n, coderag_tokens *out) {
  return coderag_tokenize(out, query, text, n, cr_collect);
}

void coderag_tokens_free(coderag_tokens *out) {
  sqlite3_free(out->items);
  sqlite3_free(out->text);
  out->items = 0;
  out->text = 0;
  out->n = out->cap = 0;
}
