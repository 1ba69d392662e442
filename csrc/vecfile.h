/* word2vec binary and text rows read from a vectors file held whole in
 * memory (a read-only mapping): the entries found, the floats parsed into
 * the caller's matrix and each row's L2 norm computed on the way, on
 * threads. Nothing here allocates more than per-thread bookkeeping; the
 * caller sizes every output from what the counting passes found.
 *
 * Text rows are what bytes.split() makes of a line: fields separated by
 * the six ASCII whitespace bytes, a line ending at '\n', blank lines
 * carrying nothing. A value is a decimal number ([+-]digits[.digits]
 * [e[+-]digits]) or inf/infinity/nan; it is read as the double nearest
 * to it, then rounded to float, as float(token) and numpy's astype do. */
#ifndef WV_VECFILE_H
#define WV_VECFILE_H

#include <stdint.h>

#include "status.h"

typedef enum {
    WV_VF_OK = 0,
    WV_VF_TRUNCATED,   /* binary: the file ends inside entry `where` */
    WV_VF_NO_SPACE,    /* binary: no space within the longest word allowed */
    WV_VF_EMPTY_WORD,  /* binary: an entry with no word */
    WV_VF_NUL_WORD,    /* a word holds a NUL byte */
    WV_VF_NOT_NUMBER,  /* text: the token at `at` is not a number */
    WV_VF_COUNT,       /* text: a line with `count` values, not dim */
    WV_VF_NOT_FINITE,  /* a value is inf or nan (or past float's range) */
} wv_vf_problem;

typedef struct {
    int problem;       /* wv_vf_problem */
    int64_t where;     /* binary: entry (from 0); text: line number (from the piece's first) */
    int64_t at;        /* byte offset of what is wrong */
    int64_t count;     /* WV_VF_COUNT: values on the line */
} wv_vf_error;

/* fastText's dictionary entries "word\0<int64 count><int8 type>" from byte
 * `pos`: word_at, word_len, count and type of up to n entries. Returns the
 * entries found (fewer than n: the buffer ends inside the next). */
int64_t wv_vf_nul_entries(const uint8_t *buf, int64_t len, int64_t pos, int64_t n, int64_t *word_at,
                          int64_t *word_len, int64_t *count, int8_t *type);

/* Binary entries "word<space><dim float32>", each optionally preceded by
 * newlines (word2vec.c writes one after every vector), from byte `pos`:
 * word_at[i] and word_len[i] for up to n entries. Returns the entries
 * found; fewer than n means err says why. One pass over the words only. */
int64_t wv_vf_binary_scan(const uint8_t *buf, int64_t len, int64_t pos, int64_t n, int64_t dim,
                          int64_t max_word, int64_t *word_at, int64_t *word_len, wv_vf_error *err);

/* Row i of out (n x dim float) from the dim little-endian float32 after
 * entry i's word and its space; norms[i] its L2 norm. Returns the first
 * row holding inf or nan, or -1. */
int64_t wv_vf_binary_rows(const uint8_t *buf, const int64_t *word_at, const int64_t *word_len, int64_t n,
                          int64_t dim, float *out, float *norms, int threads);

/* A stretch of text [begin, end) that ends at a line's end, and the rows
 * (non-blank lines) and lines in it. */
typedef struct {
    int64_t begin, end, rows, lines;
} wv_vf_piece;

/* Cuts [begin, end) into at most max_pieces pieces at newlines and counts
 * each one's rows and lines, on threads. Returns the pieces made. */
int wv_vf_text_pieces(const uint8_t *buf, int64_t begin, int64_t end, wv_vf_piece *pieces, int max_pieces,
                      int threads);

/* Where the first `rows` rows from `begin` end (after the last one's
 * newline), or `end` when there are fewer. */
int64_t wv_vf_text_rows_end(const uint8_t *buf, int64_t begin, int64_t end, int64_t rows);

/* Parses the rows of pieces[0..n_pieces): piece p's first row is row
 * first_row[p] of out (n x dim) and its first line is line first_line[p].
 * Each row's word lands in word_at/word_len, its values in out, its norm
 * in norms. errors[p] says what stopped piece p (problem WV_VF_OK: none);
 * the caller reports the first. */
void wv_vf_text_parse(const uint8_t *buf, const wv_vf_piece *pieces, int n_pieces, const int64_t *first_row,
                      const int64_t *first_line, int64_t dim, float *out, float *norms, int64_t *word_at,
                      int64_t *word_len, wv_vf_error *errors, int threads);

/* Word i's bytes (buf[word_at[i]], offsets[i + 1] - offsets[i] of them)
 * copied to blob + offsets[i], on threads. */
void wv_vf_gather_words(const uint8_t *buf, const int64_t *word_at, const int64_t *offsets, int64_t n,
                        uint8_t *blob, int threads);

/* norms[i] = the L2 norm of row i of m (n x dim), on threads. */
void wv_vf_row_norms(const float *m, int64_t n, int64_t dim, float *norms, int threads);

#endif
