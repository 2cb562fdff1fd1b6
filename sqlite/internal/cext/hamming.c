/*
 * hamming.c: coderag_prefilter, the sign-bit prefilter of the fast KNN path
 * computed where SQLite holds the pages.
 *
 * sqlite/quant.go keeps, per page of 1024 vectors, their chunk pks and the
 * sign bits of each vector minus the mean. A process that searches many
 * times reads every page into Go memory once and scans it there. A one-shot
 * `coderag query` would read them for one scan only: at 183k vectors that
 * is 5.9 MB copied out of SQLite and again into Go's heap (~7 ms). This
 * aggregate scans each page in the buffer SQLite reads it into instead:
 *
 *   SELECT coderag_prefilter(pks, bits, ?qbits, ?want)
 *     FROM (SELECT pks, bits FROM vec_pages ORDER BY page)
 *
 * It returns the pks (little-endian int64s, in page order) of the want
 * vectors nearest to the query's bits by Hamming distance and every vector
 * as near as the last of them: those nearer than the cut, where fewer than
 * want are, and all those at the cut (taking some of them in page order
 * let the order a crawl wrote the vectors in choose) — the selection
 * knnPaged makes in Go, so the two give the same candidates. A page whose
 * bits do not fit the query's width is an error saying so.
 */
#include <stdint.h>
#include <string.h>

#include "sqlite3.h"
#include "tokenizer.h"

typedef struct cr_prefilter {
  int words;          /* uint64 sign words per vector; 0 before the first row */
  sqlite3_int64 n;    /* vectors seen */
  sqlite3_int64 cap;  /* room in pks and dist */
  sqlite3_int64 *pks; /* chunk pk of each vector seen */
  uint16_t *dist;     /* its Hamming distance to the query */
  sqlite3_int64 want; /* candidates to return */
  int failed;         /* an error was reported; later rows are skipped */
} cr_prefilter;

static uint64_t cr_le64(const unsigned char *p) {
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
         (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* cr_distances_body writes the Hamming distance of each of n vectors of
 * words words in bits to the query q; inlined into each variant below,
 * so that the POPCNT one compiles its popcounts to the instruction. */
static inline __attribute__((always_inline)) void cr_distances_body(const unsigned char *bits,
                                                                    sqlite3_int64 n, int words,
                                                                    const uint64_t *q,
                                                                    uint16_t *out) {
  sqlite3_int64 i;
  int w;
  for (i = 0; i < n; i++) {
    const unsigned char *v = bits + (size_t)i * (size_t)words * 8;
    int d = 0;
    for (w = 0; w < words; w++) d += __builtin_popcountll(q[w] ^ cr_le64(v + 8 * w));
    out[i] = (uint16_t)d;
  }
}

static void cr_distances_generic(const unsigned char *bits, sqlite3_int64 n, int words,
                                 const uint64_t *q, uint16_t *out) {
  cr_distances_body(bits, n, words, q, out);
}

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
/* With the POPCNT instruction, which the build's default target does not
 * assume: chosen at run time when the CPU has it. */
__attribute__((target("popcnt"))) static void cr_distances_popcnt(const unsigned char *bits,
                                                                   sqlite3_int64 n, int words,
                                                                   const uint64_t *q,
                                                                   uint16_t *out) {
  cr_distances_body(bits, n, words, q, out);
}

static void cr_distances(const unsigned char *bits, sqlite3_int64 n, int words, const uint64_t *q,
                         uint16_t *out) {
  if (__builtin_cpu_supports("popcnt")) {
    cr_distances_popcnt(bits, n, words, q, out);
  } else {
    cr_distances_generic(bits, n, words, q, out);
  }
}
#else
#define cr_distances cr_distances_generic
#endif

static void cr_prefilter_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  cr_prefilter *p = (cr_prefilter *)sqlite3_aggregate_context(ctx, sizeof(cr_prefilter));
  uint64_t q[64];
  const unsigned char *pks, *bits, *qb;
  sqlite3_int64 n, i;
  int npks, nbits, nq, words, w;
  (void)argc;
  if (p == 0) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (p->failed) return;
  qb = (const unsigned char *)sqlite3_value_blob(argv[2]);
  nq = sqlite3_value_bytes(argv[2]);
  words = nq / 8;
  if (words <= 0 || nq % 8 != 0 || words > 64) {
    p->failed = 1;
    sqlite3_result_error(ctx, "coderag_prefilter: the query's sign bits are not 1 to 64 words", -1);
    return;
  }
  pks = (const unsigned char *)sqlite3_value_blob(argv[0]);
  npks = sqlite3_value_bytes(argv[0]);
  bits = (const unsigned char *)sqlite3_value_blob(argv[1]);
  nbits = sqlite3_value_bytes(argv[1]);
  n = npks / 8;
  if ((sqlite3_int64)nbits != n * words * 8) {
    p->failed = 1;
    sqlite3_result_error(ctx, "a vector page does not fit the query's dimension", -1);
    return;
  }
  if (n == 0) return;
  p->words = words;
  p->want = sqlite3_value_int64(argv[3]);
  if (p->n + n > p->cap) {
    sqlite3_int64 cap = p->cap ? p->cap : 4096;
    sqlite3_int64 *npk;
    uint16_t *nd;
    while (cap < p->n + n) cap *= 2;
    npk = (sqlite3_int64 *)sqlite3_realloc64(p->pks, (sqlite3_uint64)cap * sizeof(*npk));
    if (npk) p->pks = npk;
    nd = npk ? (uint16_t *)sqlite3_realloc64(p->dist, (sqlite3_uint64)cap * sizeof(*nd)) : 0;
    if (nd) p->dist = nd;
    if (!npk || !nd) {
      p->failed = 1;
      sqlite3_result_error_nomem(ctx);
      return;
    }
    p->cap = cap;
  }
  for (w = 0; w < words; w++) q[w] = cr_le64(qb + 8 * w);
  for (i = 0; i < n; i++) p->pks[p->n + i] = (sqlite3_int64)cr_le64(pks + 8 * i);
  cr_distances(bits, n, words, q, p->dist + p->n);
  p->n += n;
}

static void cr_prefilter_final(sqlite3_context *ctx) {
  cr_prefilter *p = (cr_prefilter *)sqlite3_aggregate_context(ctx, 0);
  sqlite3_int64 want, acc = 0, i, taken = 0;
  sqlite3_int64 hist[64 * 64 + 1];
  int cut, dim;
  unsigned char *out;
  if (p == 0 || p->n == 0) {
    if (p == 0 || !p->failed) sqlite3_result_zeroblob(ctx, 0);
    goto done;
  }
  if (p->failed) goto done;
  dim = p->words * 64;
  memset(hist, 0, sizeof(hist[0]) * (size_t)(dim + 1));
  for (i = 0; i < p->n; i++) hist[p->dist[i]]++;
  want = p->want < p->n ? p->want : p->n;
  if (want < 0) want = 0;
  for (cut = 0; cut <= dim && acc + hist[cut] < want; cut++) acc += hist[cut];
  if (cut <= dim) acc += hist[cut];
  out = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)acc * 8 + 1);
  if (!out) {
    sqlite3_result_error_nomem(ctx);
    goto done;
  }
  for (i = 0; i < p->n; i++) {
    int d = p->dist[i];
    if (d <= cut) {
      sqlite3_uint64 pk = (sqlite3_uint64)p->pks[i];
      int b;
      for (b = 0; b < 8; b++) out[taken * 8 + b] = (unsigned char)(pk >> (8 * b));
      taken++;
    }
  }
  sqlite3_result_blob64(ctx, out, (sqlite3_uint64)taken * 8, sqlite3_free);
done:
  if (p) {
    sqlite3_free(p->pks);
    sqlite3_free(p->dist);
  }
}

int coderag_register_prefilter(sqlite3 *db) {
  return sqlite3_create_function_v2(db, "coderag_prefilter", 4,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, 0, 0,
                                    cr_prefilter_step, cr_prefilter_final, 0);
}
