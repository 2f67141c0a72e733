/* SPDX-License-Identifier: MIT */
/* records.c -- FLAG, mate fields and read group of the output records (the
 * rules are in records.h). */
#include <stdlib.h>
#include <string.h>

#include <htslib/sam.h>

#include "io/records.h"
#include "io/sam_out.h"

int gpuasm_adjacent_mates(const bam1_t *x, const bam1_t *y)
{
    if (!x || !y) return 0;
    return (x->core.flag & BAM_FPAIRED) && (x->core.flag & BAM_FREAD1) &&
           (y->core.flag & BAM_FPAIRED) && (y->core.flag & BAM_FREAD2) &&
           strcmp(bam_get_qname(x), bam_get_qname(y)) == 0;
}

void gpuasm_records_clear(gpuasm_records *s)
{
    s->n = s->n_read = 0;
    s->hit_records = s->reads_with_hits = s->lone_mates = 0;
}

void gpuasm_records_free(gpuasm_records *s)
{
    for (size_t i = 0; i < s->m; i++) bam_destroy1(s->rec[i]);
    free(s->rec);
    free(s->per_read);
    memset(s, 0, sizeof(*s));
}

/* The next output record (allocated once, reused run after run), or NULL
 * when out of memory. */
static bam1_t *next_record(gpuasm_records *s)
{
    if (s->n == s->m) {
        size_t c = s->m ? 2 * s->m : 256;
        bam1_t **q = realloc(s->rec, c * sizeof(*q));
        if (!q) return NULL;
        s->rec = q;
        for (; s->m < c; s->m++)
            if (!(s->rec[s->m] = bam_init1())) return NULL;
    }
    return s->rec[s->n++];
}

/* The records of one read.  mate: its adjacent mate's occurrences, or NULL
 * (single-end, or a lone mate).  write_unmatched: a read without
 * occurrences gets its 0x4 record (rule 3). */
static int add_read(gpuasm_records *s, const gpuasm_record_opt *o, kstring_t *scratch,
                    const bam1_t *read, const gpuasm_report *r, const gpuasm_report *mate,
                    int write_unmatched)
{
    uint16_t pair_bits = read->core.flag & (BAM_FPAIRED | BAM_FREAD1 | BAM_FREAD2);
    const gpuasm_occ *mo = mate && mate->n_occ ? &mate->occ[0] : NULL;
    bam1_t *dst;

    if (r->n_occ == 0) {
        if (!write_unmatched) return 0;
        gpuasm_sam_fields f = { .flag = pair_bits | BAM_FUNMAP, .tid = -1, .pos = -1,
                                .mapq = 0, .mtid = -1, .mpos = -1, .nm = -1,
                                .rg = o->rg_id, .keep_tags = o->keep_tags };
        if (mate && mo) {
            /* An unmapped read with a placed mate sits at the mate's place. */
            f.tid = f.mtid = (int32_t)mo->target;
            f.pos = f.mpos = mo->pos;
            if (mo->strand) f.flag |= BAM_FMREVERSE;
        } else if (mate) {
            f.flag |= BAM_FMUNMAP;
        }
        if (!(dst = next_record(s)) || gpuasm_sam_set_record(dst, read, &f, scratch) < 0)
            return -1;
        return 0;
    }
    s->reads_with_hits++;
    for (size_t i = 0; i < r->n_occ; i++) {
        const gpuasm_occ *oc = &r->occ[i];
        gpuasm_sam_fields f = {
            .flag = pair_bits | (oc->strand ? BAM_FREVERSE : 0) | (i ? BAM_FSECONDARY : 0),
            .tid = (int32_t)oc->target, .pos = oc->pos, .mapq = 255,
            .cigar = r->cigar + oc->cigar_off, .n_cigar = oc->n_cigar,
            .mtid = -1, .mpos = -1, .reverse = (int)oc->strand,
            .nm = oc->nm, .dist = oc->dist, .as = oc->score, .md = r->md.s + oc->md_off,
            .has_xs = oc->has_xs, .xs = oc->xs, .chance = oc->chance,
            .partial = gpuasm_occ_partial_name(oc->partial),
            .rg = o->rg_id, .keep_tags = o->keep_tags,
        };
        if (mate) {
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
        if (!(dst = next_record(s)) || gpuasm_sam_set_record(dst, read, &f, scratch) < 0)
            return -1;
        s->hit_records++;
    }
    return 0;
}

/* Count the records read q added (n0: s->n before it). */
static int count_read(gpuasm_records *s, size_t n0)
{
    if (s->n_read == s->m_read) {
        size_t c = s->m_read ? 2 * s->m_read : 256;
        uint32_t *q = realloc(s->per_read, c * sizeof(*q));
        if (!q) return -1;
        s->per_read = q;
        s->m_read = c;
    }
    s->per_read[s->n_read++] = (uint32_t)(s->n - n0);
    return 0;
}

int gpuasm_records_add(gpuasm_records *s, const gpuasm_record_opt *o, kstring_t *scratch,
                       bam1_t *const *read, const gpuasm_report *const *rep, int n_read)
{
    size_t n0 = s->n;
    gpuasm_sam_seq_forget(scratch);   /* a new read: its bam1_t may be where another's was */
    if (n_read == 1) {
        if (read[0]->core.flag & BAM_FPAIRED) s->lone_mates++;
        if (add_read(s, o, scratch, read[0], rep[0], NULL, o->unmatched) < 0) return -1;
        return count_read(s, n0);
    }
    /* A pair: both mates' records, or none (rule 3). */
    int any = rep[0]->n_occ > 0 || rep[1]->n_occ > 0;
    for (int q = 0; q < 2; q++) {
        n0 = s->n;
        if (add_read(s, o, scratch, read[q], rep[q], rep[1 - q], o->unmatched || any) < 0 ||
            count_read(s, n0) < 0)
            return -1;
    }
    return 0;
}
