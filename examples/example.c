/* example.c -- search three reads for an adapter and a virus with libgpuasm.
 * Build: cc example.c $(pkg-config --cflags --libs gpuasm) */
#include <stdio.h>
#include <gpuasm.h>

int main(void)
{
    const char *targets[] = {
        "AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC",                            /* TruSeq adapter */
        "GATCCTAGTTGACCATGCGTAAGCTTACGGATCCAATGCTTAGCCGATTACGGTACGATCCA", /* a "virus" */
    };
    const char *reads[] = {
        "TTGCAAGCTTGCAGATCGGAAGAGCACACGTATGAACTCCAGTCACAAAA",   /* adapter, 1 mismatch */
        "TGGATCGTACCGTAATCGGCTAAGCATTGGATCCG",                  /* the virus, reverse strand */
        "CCCCCCCCCCGGGGGGGGGGAAAAAAAAAATTTTTTTTTT",             /* nothing */
    };
    gpuasm_config cfg = gpuasm_config_default();   /* k = 10% of the pattern, both strands */
    cfg.device = "cpu";                            /* "auto": a GPU when there is one */
    gpuasm_result r = gpuasm_align_batch(reads, 3, targets, 2, cfg);
    if (r.status != GPUASM_STATUS_OK) {
        fprintf(stderr, "example: %s\n", r.error);
        return 1;
    }
    for (size_t i = 0; i < r.n_hits; i++) {
        const gpuasm_hit *h = &r.hits[i];
        printf("read %u target %u %c distance %d target [%lld, %lld) read [%lld, %lld) %s\n",
               h->read, h->target, h->reverse ? '-' : '+', h->distance,
               (long long)h->target_start, (long long)h->target_end,
               (long long)h->read_start, (long long)h->read_end, h->cigar);
    }
    gpuasm_result_free(&r);
    return 0;
}
