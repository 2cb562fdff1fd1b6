/*
 * rank.c: coderag_bm25, FTS5's bm25 ranking with the row lengths read from
 * memory.
 *
 * FTS5's own bm25() asks for each matching row's length (xColumnSize),
 * which runs a statement on the table's %_docsize: about 1 µs a row, four
 * fifths of scoring an OR of common words over a large index. Go reads
 * every row's length once from a packed copy (sqlite/lengths.go) and
 * registers it here; coderag_bm25(tbl, handle, w0, w1, ...) computes the
 * same score as bm25(tbl, w0, w1, ...) — the same IDF, average length,
 * weighted frequencies and operations in the same order, so the same
 * double — taking a row's length from the registered array, or from
 * xColumnSize for a row the array does not hold.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "sqlite3.h"
#include "tokenizer.h"

#define CR_MAX_LENGTHS 256

typedef struct cr_lengths {
  sqlite3_int64 base; /* rowid of the first length */
  sqlite3_int64 n;    /* lengths */
  int width;          /* bytes per length: 2 or 4 */
  unsigned char *len; /* little-endian row length + 1; 0: not held */
} cr_lengths;

static pthread_mutex_t cr_lengths_mu = PTHREAD_MUTEX_INITIALIZER;
static cr_lengths *cr_lengths_reg[CR_MAX_LENGTHS];

int coderag_lengths_register(sqlite3_int64 base, int width, const unsigned char *len,
                             sqlite3_int64 n) {
  int i, h = 0;
  cr_lengths *l;
  if (width != 2 && width != 4) return 0;
  l = (cr_lengths *)sqlite3_malloc64(sizeof(*l));
  if (!l) return 0;
  l->len = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)(n > 0 ? n : 1) * (sqlite3_uint64)width);
  if (!l->len) {
    sqlite3_free(l);
    return 0;
  }
  if (n > 0) memcpy(l->len, len, (size_t)n * (size_t)width);
  l->base = base;
  l->n = n;
  l->width = width;
  pthread_mutex_lock(&cr_lengths_mu);
  for (i = 0; i < CR_MAX_LENGTHS; i++) {
    if (!cr_lengths_reg[i]) {
      cr_lengths_reg[i] = l;
      h = i + 1;
      break;
    }
  }
  pthread_mutex_unlock(&cr_lengths_mu);
  if (!h) {
    sqlite3_free(l->len);
    sqlite3_free(l);
  }
  return h;
}

void coderag_lengths_free(int h) {
  cr_lengths *l = 0;
  if (h < 1 || h > CR_MAX_LENGTHS) return;
  pthread_mutex_lock(&cr_lengths_mu);
  l = cr_lengths_reg[h - 1];
  cr_lengths_reg[h - 1] = 0;
  pthread_mutex_unlock(&cr_lengths_mu);
  if (l) {
    sqlite3_free(l->len);
    sqlite3_free(l);
  }
}

/* cr_bm25_data is what one statement's scoring keeps between rows, as
 * FTS5's Fts5Bm25Data. */
typedef struct cr_bm25_data {
  int nPhrase;
  double avgdl;
  double *aIDF;
  double *aFreq;
  const cr_lengths *lens;
} cr_bm25_data;

/* cr_length returns row's length + 1 from l, or 0 when l does not hold it. */
static unsigned int cr_length(const cr_lengths *l, sqlite3_int64 row) {
  const unsigned char *p;
  if (!l || row < l->base || row - l->base >= l->n) return 0;
  p = l->len + (row - l->base) * l->width;
  if (l->width == 2) return (unsigned int)p[0] | (unsigned int)p[1] << 8;
  return (unsigned int)p[0] | (unsigned int)p[1] << 8 | (unsigned int)p[2] << 16 | (unsigned int)p[3] << 24;
}

static int cr_count_cb(const Fts5ExtensionApi *api, Fts5Context *fts, void *ctx) {
  (void)api;
  (void)fts;
  (*(sqlite3_int64 *)ctx)++;
  return SQLITE_OK;
}

static int cr_bm25_data_get(const Fts5ExtensionApi *api, Fts5Context *fts, int handle,
                            cr_bm25_data **out) {
  int rc = SQLITE_OK, i, nPhrase;
  sqlite3_int64 nRow = 0, nToken = 0;
  cr_bm25_data *p = (cr_bm25_data *)api->xGetAuxdata(fts, 0);
  if (p) {
    *out = p;
    return SQLITE_OK;
  }
  nPhrase = api->xPhraseCount(fts);
  p = (cr_bm25_data *)sqlite3_malloc64(sizeof(*p) + sizeof(double) * 2 * (sqlite3_uint64)nPhrase);
  if (!p) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p) + sizeof(double) * 2 * (size_t)nPhrase);
  p->nPhrase = nPhrase;
  p->aIDF = (double *)&p[1];
  p->aFreq = &p->aIDF[nPhrase];
  rc = api->xRowCount(fts, &nRow);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &nToken);
  if (rc == SQLITE_OK) p->avgdl = (double)nToken / (double)nRow;
  for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
    sqlite3_int64 nHit = 0;
    rc = api->xQueryPhrase(fts, i, (void *)&nHit, cr_count_cb);
    if (rc == SQLITE_OK) {
      double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
      if (idf <= 0.0) idf = 1e-6;
      p->aIDF[i] = idf;
    }
  }
  if (rc == SQLITE_OK && handle >= 1 && handle <= CR_MAX_LENGTHS) {
    pthread_mutex_lock(&cr_lengths_mu);
    p->lens = cr_lengths_reg[handle - 1];
    pthread_mutex_unlock(&cr_lengths_mu);
  }
  if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, p, sqlite3_free);
  if (rc != SQLITE_OK) {
    sqlite3_free(p);
    p = 0;
  }
  *out = p;
  return rc;
}

/* cr_bm25 is coderag_bm25(tbl, handle, weights...). */
static void cr_bm25(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                    int nVal, sqlite3_value **apVal) {
  const double k1 = 1.2, b = 0.75;
  double score = 0.0, D = 0.0;
  cr_bm25_data *p = 0;
  double *aFreq = 0;
  int rc, i, nInst = 0, handle = nVal > 0 ? sqlite3_value_int(apVal[0]) : 0;
  if (nVal > 0) {
    nVal--;
    apVal++;
  }
  rc = cr_bm25_data_get(api, fts, handle, &p);
  if (rc == SQLITE_OK) {
    aFreq = p->aFreq;
    memset(aFreq, 0, sizeof(double) * (size_t)p->nPhrase);
    rc = api->xInstCount(fts, &nInst);
  }
  for (i = 0; rc == SQLITE_OK && i < nInst; i++) {
    int ip, ic, io;
    rc = api->xInst(fts, i, &ip, &ic, &io);
    if (rc == SQLITE_OK) {
      double w = (nVal > ic) ? sqlite3_value_double(apVal[ic]) : 1.0;
      aFreq[ip] += w;
    }
  }
  if (rc == SQLITE_OK) {
    int nTok = 0;
    unsigned int held = cr_length(p->lens, api->xRowid(fts));
    if (held != 0) {
      nTok = (int)(held - 1);
    } else {
      rc = api->xColumnSize(fts, -1, &nTok);
    }
    D = (double)nTok;
  }
  if (rc == SQLITE_OK) {
    for (i = 0; i < p->nPhrase; i++) {
      score += p->aIDF[i] * ((aFreq[i] * (k1 + 1.0)) / (aFreq[i] + k1 * (1 - b + b * D / p->avgdl)));
    }
    sqlite3_result_double(ctx, -1.0 * score);
  } else {
    sqlite3_result_error_code(ctx, rc);
  }
}

int coderag_register_rank(fts5_api *api) {
  return api->xCreateFunction(api, "coderag_bm25", 0, cr_bm25, 0);
}
