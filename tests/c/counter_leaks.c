/* The word counter and encoder driven from C under ASan/LSan, alone (Python's
 * own allocations hide leaks from LeakSanitizer in the pytest run). Run:
 *   gcc -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
 *       -Icsrc tests/c/counter_leaks.c csrc/vocab.c csrc/strtab.c csrc/tokenize.c csrc/hugepages.c -pthread && ./a.out
 * Counts a generated corpus of 200,000 distinct words in one counter and in
 * 4 counters of 4 parts merged part by part on 4 threads (the tables grow
 * many times), checks that both give the same sorted words (words of equal
 * count in the order the text first shows them: w0, w1, ... as generated),
 * prunes, encodes
 * with the result, checks that the provisional ids the 4 counters wrote
 * resolve to the encoder's ids, and frees everything; exits non-zero on any
 * difference. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vocab.h"

#define PIECES 4

typedef struct {
    wv_counter *into;
    wv_counter *from[PIECES];
    int part;
    wv_status rc;
} absorb_job;

static void *absorb(void *arg) {
    absorb_job *j = arg;
    j->rc = wv_counter_absorb_part(j->into, j->from, PIECES, j->part);
    return NULL;
}

static int same(const wv_word_count *a, const wv_word_count *b, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (a[i].count != b[i].count || a[i].len != b[i].len || memcmp(a[i].word, b[i].word, (size_t)a[i].len))
            return 0;
    return 1;
}

/* Words of equal count come in first-seen order: the text's first 200,000
 * tokens are w0, w1, ... (hex), so their numbers must rise within a count. */
static int ties_first_seen(const wv_word_count *a, int64_t n) {
    for (int64_t i = 1; i < n; i++)
        if (a[i].count == a[i - 1].count &&
            strtoull(a[i].word + 1, NULL, 16) <= strtoull(a[i - 1].word + 1, NULL, 16))
            return 0;
    return 1;
}

int main(void) {
    size_t cap = 16u << 20, len = 0;
    char *text = malloc(cap);
    if (!text) return 1;
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 1000000 && len + 32 < cap; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint64_t id = i < 200000 ? (uint64_t)i : (x % 200000) / (1 + x % 7);
        len += (size_t)sprintf(text + len, "w%llx%c", (unsigned long long)id, i % 17 ? ' ' : '\n');
    }
    wv_counter one, pieces[PIECES], merged;
    if (wv_counter_init(&one, 0, 1, 0) || wv_counter_init(&merged, 0, PIECES, 0)) return 1;
    for (size_t off = 0; off < len; off += 4093)  /* chunks that cut words */
        if (wv_counter_feed(&one, text + off, off + 4093 < len ? 4093 : len - off, 0)) return 1;
    if (wv_counter_feed(&one, "", 0, 1)) return 1;
    size_t cut[PIECES + 1] = {0};
    for (int p = 1; p < PIECES; p++) {
        cut[p] = len * (size_t)p / PIECES;
        while (text[cut[p] - 1] != ' ' && text[cut[p] - 1] != '\n') cut[p]++;
    }
    cut[PIECES] = len;
    absorb_job jobs[PIECES];
    pthread_t threads[PIECES];
    for (int p = 0; p < PIECES; p++) {
        if (wv_counter_init(&pieces[p], 0, PIECES, (int64_t)p << 40)) return 1; /* in the text's order */
    }
    int32_t *prov[PIECES];
    int64_t n_prov[PIECES];
    for (int p = 0; p < PIECES; p++) {
        size_t n = cut[p + 1] - cut[p];
        prov[p] = malloc((n + 2) * sizeof **prov);
        if (!prov[p] || wv_counter_feed_ids(&pieces[p], text + cut[p], n, 1, prov[p], (int64_t)n + 2, &n_prov[p]))
            return 1;
    }
    for (int p = 0; p < PIECES; p++) {
        jobs[p].into = &merged;
        for (int k = 0; k < PIECES; k++) jobs[p].from[k] = &pieces[k];
        jobs[p].part = p;
        if (pthread_create(&threads[p], NULL, absorb, &jobs[p])) return 1;
    }
    for (int p = 0; p < PIECES; p++) {
        pthread_join(threads[p], NULL);
        if (jobs[p].rc) return 1;
        wv_counter_add_totals(&merged, &pieces[p]);
    }
    wv_word_count *a, *b;
    int64_t na, nb;
    if (wv_counter_sorted(&one, 1, &a, &na) || wv_counter_sorted(&merged, 1, &b, &nb)) return 1;
    int ok = na == nb && na == 200000 && same(a, b, na) && one.tok.tokens == merged.tok.tokens &&
             ties_first_seen(a, na);
    printf("%lld distinct, %lld tokens: %s\n", (long long)na, (long long)one.tok.tokens, ok ? "same" : "DIFFERENT");
    wv_encoder e;
    if (wv_encoder_init(&e, 1)) return 1;
    for (int64_t i = 0; i < na && i < 5000; i++)
        if (wv_encoder_add(&e, a[i].word, a[i].len)) return 1;
    int32_t *ids = malloc((len + 2) * sizeof *ids);
    int64_t written;
    if (!ids || wv_encoder_feed(&e, text, len, 1, ids, (int64_t)len + 2, &written)) return 1;
    printf("encoded %lld ids, %lld oov\n", (long long)written, (long long)e.oov);
    size_t joined_len = 0;
    char *joined = malloc((size_t)16 * 5000);
    if (!joined) return 1;
    for (int64_t i = 0; i < na && i < 5000; i++) {
        if (i) joined[joined_len++] = '\n';
        memcpy(joined + joined_len, a[i].word, (size_t)a[i].len);
        joined_len += (size_t)a[i].len;
    }
    if (wv_counter_number(&merged, joined, joined_len)) return 1;
    int resolved = 1;
    for (int p = 0; p < PIECES; p++) {
        wv_encoder ep;
        int64_t kept, oov, eos, truth_n;
        size_t n = cut[p + 1] - cut[p];
        if (wv_encoder_copy(&ep, &e)) return 1;
        ep.last_was_eos = p == 0;
        if (wv_encoder_feed(&ep, text + cut[p], n, 1, ids, (int64_t)len + 2, &truth_n)) return 1;
        if (wv_counter_resolve_ids(&pieces[p], &merged, prov[p], n_prov[p], p > 0, &kept, &oov, &eos)) return 1;
        resolved = resolved && kept == truth_n && oov == ep.oov && !memcmp(ids, prov[p], (size_t)kept * sizeof *ids);
        wv_encoder_free(&ep);
        free(prov[p]);
    }
    free(joined);
    ok = ok && resolved;
    printf("provisional ids: %s\n", resolved ? "resolved alike" : "DIFFERENT");
    wv_counter pruned;
    if (wv_counter_init(&pruned, 1000, 3, 0) || wv_counter_feed(&pruned, text, len, 1)) return 1;
    ok = ok && pruned.prunes > 0 && wv_counter_distinct(&pruned) <= 1000;
    printf("pruned %lld times to %lld words\n", (long long)pruned.prunes, (long long)wv_counter_distinct(&pruned));
    free(a); free(b); free(ids); free(text);
    wv_encoder_free(&e);
    wv_counter_free(&one); wv_counter_free(&merged); wv_counter_free(&pruned);
    for (int p = 0; p < PIECES; p++) wv_counter_free(&pieces[p]);
    return ok ? 0 : 1;
}
