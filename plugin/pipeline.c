/* pipeline.c -- read -> scan -> report -> write (see pipeline.h).
 *
 * Reads go in batches measured in bases; the engine returns the batch's end
 * hits sorted by read, so each read's records are produced in input order
 * from its slice of the hit list.  Mates stored next to each other are
 * handled together so each gets the other's position (RNEXT/PNEXT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/sam.h>
#include <htslib/kstring.h>

#include "engine.h"
#include "pipeline.h"
#include "reads.h"
#include "sam_out.h"
#include "targets.h"

#define DEFAULT_BATCH_BASES (16u << 20)

static void *engine_alloc(void *ctx, size_t n) { return gpuasm_engine_host_alloc(ctx, n); }
static void engine_free(void *ctx, void *p) { gpuasm_engine_host_free(ctx, p); }

/* Are rec[i] and rec[i+1] the two mates of one template? */
static int adjacent_mates(const gpuasm_batch *b, uint32_t i)
{
    if (i + 1 >= b->n) return 0;
    const bam1_t *x = b->rec[i], *y = b->rec[i + 1];
    return (x->core.flag & BAM_FPAIRED) && (x->core.flag & BAM_FREAD1) &&
           (y->core.flag & BAM_FPAIRED) && (y->core.flag & BAM_FREAD2) &&
           strcmp(bam_get_qname(x), bam_get_qname(y)) == 0;
}

typedef struct {
    gpuasm_writer *w;
    bam1_t *out;
    kstring_t scratch;
    const gpuasm_scan_opt *o;
} emitter;

/* Write the records of one read.  mate: the report of its adjacent mate,
 * or NULL (unpaired, or mate not next to it). */
static int emit_read(emitter *em, const bam1_t *read, const gpuasm_report *r,
                     const gpuasm_report *mate, char *err, size_t errlen)
{
    uint16_t in_flag = read->core.flag;
    uint16_t pair_bits = in_flag & (BAM_FPAIRED | BAM_FREAD1 | BAM_FREAD2);
    int paired = (in_flag & BAM_FPAIRED) != 0;
    const gpuasm_occ *mo = mate && mate->n_occ ? &mate->occ[0] : NULL;

    if (r->n_occ == 0) {
        if (!em->o->unmatched) return 0;
        gpuasm_sam_fields f = { .flag = pair_bits | BAM_FUNMAP, .tid = -1, .pos = -1,
                                .mapq = 0, .mtid = -1, .mpos = -1, .nm = -1, .xs = -1,
                                .keep_tags = em->o->keep_tags };
        if (mate && mo) {
            /* Unmapped read with a placed mate sits at the mate's place. */
            f.tid = f.mtid = (int32_t)mo->target;
            f.pos = f.mpos = mo->pos;
            if (mo->strand) f.flag |= BAM_FMREVERSE;
        } else if (mate) {
            f.flag |= BAM_FMUNMAP;
        }
        if (gpuasm_sam_set_record(em->out, read, &f, &em->scratch) < 0) goto oom;
        return gpuasm_writer_write(em->w, em->out, err, errlen);
    }
    for (size_t i = 0; i < r->n_occ; i++) {
        const gpuasm_occ *oc = &r->occ[i];
        gpuasm_sam_fields f = {
            .flag = pair_bits | (oc->strand ? BAM_FREVERSE : 0) | (i ? BAM_FSECONDARY : 0),
            .tid = (int32_t)oc->target, .pos = oc->pos, .mapq = 255,
            .cigar = r->cigar + oc->cigar_off, .n_cigar = oc->n_cigar,
            .mtid = -1, .mpos = -1, .reverse = (int)oc->strand,
            .nm = oc->dist, .md = r->md.s + oc->md_off, .xs = oc->xs,
            .keep_tags = em->o->keep_tags,
        };
        if (paired && mate) {
            if (mo) {
                f.mtid = (int32_t)mo->target;
                f.mpos = mo->pos;
                if (mo->strand) f.flag |= BAM_FMREVERSE;
            } else {
                f.flag |= BAM_FMUNMAP;
                f.mtid = f.tid;   /* as samtools fixmate: the mate is placed here */
                f.mpos = f.pos;
            }
        }
        if (gpuasm_sam_set_record(em->out, read, &f, &em->scratch) < 0) goto oom;
        if (gpuasm_writer_write(em->w, em->out, err, errlen) < 0) return -1;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Slice of sorted hits that belong to read i, starting at *pos. */
static size_t hits_of_read(const gpuasm_hits *h, size_t *pos, uint32_t i)
{
    size_t s = *pos;
    while (s < h->n && h->hit[s].read < i) s++;
    size_t e = s;
    while (e < h->n && h->hit[e].read == i) e++;
    *pos = e;
    return s;
}

int gpuasm_scan_run(const char *prog, const gpuasm_scan_opt *o, char *err, size_t errlen)
{
    int ret = -1, writer_ok = 0;
    gpuasm_targets t;
    gpuasm_engine *eng = NULL;
    gpuasm_reader *rd = NULL;
    gpuasm_batch batch;
    gpuasm_hits hits = { 0 };
    gpuasm_report rep[2];
    emitter em = { 0 };
    char warn[512], msg[512];
    int have_batch = 0;
    memset(rep, 0, sizeof rep);

    if (gpuasm_targets_load(o->targets_path, &t, err, errlen) < 0) return -1;
    if (o->report.search.max_diffs >= 0) {
        for (uint32_t i = 0; i < t.n; i++) {
            if (gpuasm_target_len(&t, i) <= (uint64_t)o->report.search.max_diffs) {
                snprintf(err, errlen, "%s: record %u (%s): -k %d is not smaller than the "
                         "target's length (%llu): every position would match",
                         o->targets_path, i + 1, t.name[i], o->report.search.max_diffs,
                         (unsigned long long)gpuasm_target_len(&t, i));
                goto out;
            }
        }
    }
    if (gpuasm_engine_open(o->device, o->n_threads, &eng, err, errlen, warn, sizeof warn) < 0)
        goto out;
    if (warn[0]) fprintf(stderr, "%s: warning: %s\n", prog, warn);
    if (gpuasm_engine_set_targets(eng, &t.set, err, errlen) < 0) goto out;
    if (gpuasm_reader_open(o->reads_path, o->reference, o->n_threads, o->wildcards, &rd,
                           err, errlen) < 0)
        goto out;
    gpuasm_writer_opt wo = { .path = o->out_path, .format = o->out_format,
                             .n_threads = o->n_threads, .pg_cl = o->pg_cl,
                             .version = o->version, .input = gpuasm_reader_header(rd),
                             .copy_rg = o->keep_tags };
    if (gpuasm_writer_open(&wo, &t, &em.w, err, errlen) < 0) goto out;
    if (!(em.out = bam_init1())) goto oom;
    em.o = o;

    gpuasm_batch_init(&batch, (gpuasm_alloc){ engine_alloc, engine_free, eng });
    have_batch = 1;
    uint64_t max_bases = o->batch_bases ? o->batch_bases : DEFAULT_BATCH_BASES;
    for (;;) {
        int nr = gpuasm_reader_next(rd, &batch, max_bases, err, errlen);
        if (nr < 0) goto out;
        if (nr == 0) break;
        if (gpuasm_engine_scan(eng, &batch.set, &o->report.search, &hits, msg, sizeof msg) < 0) {
            snprintf(err, errlen, "%s: records %llu-%llu: %s", o->reads_path,
                     (unsigned long long)batch.first_record,
                     (unsigned long long)batch.first_record + batch.n - 1, msg);
            goto out;
        }
        size_t hp = 0;
        for (uint32_t i = 0; i < batch.n;) {
            int pair = adjacent_mates(&batch, i);
            uint32_t nrd = pair ? 2 : 1;
            for (uint32_t q = 0; q < nrd; q++) {
                size_t s = hits_of_read(&hits, &hp, i + q);
                const uint8_t *code = batch.code + batch.off[i + q];
                uint32_t len = (uint32_t)(batch.off[i + q + 1] - batch.off[i + q]);
                if (gpuasm_report_read(&rep[q], &o->report, code, len, &t, hits.hit + s, hp - s,
                                       msg, sizeof msg) < 0) {
                    snprintf(err, errlen, "%s: read %s: %s", o->reads_path,
                             bam_get_qname(batch.rec[i + q]), msg);
                    goto out;
                }
            }
            for (uint32_t q = 0; q < nrd; q++)
                if (emit_read(&em, batch.rec[i + q], &rep[q], pair ? &rep[1 - q] : NULL,
                              err, errlen) < 0)
                    goto out;
            i += nrd;
        }
    }
    writer_ok = 1;
    ret = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    if (em.w) {
        char cerr[512];
        if (gpuasm_writer_close(em.w, writer_ok, cerr, sizeof cerr) < 0 && ret == 0) {
            snprintf(err, errlen, "%s", cerr);
            ret = -1;
        }
    }
    if (em.out) bam_destroy1(em.out);
    ks_free(&em.scratch);
    gpuasm_report_free(&rep[0]);
    gpuasm_report_free(&rep[1]);
    gpuasm_hits_free(&hits);
    if (have_batch) gpuasm_batch_free(&batch);
    gpuasm_reader_close(rd);
    gpuasm_engine_close(eng);
    gpuasm_targets_free(&t);
    return ret;
}
