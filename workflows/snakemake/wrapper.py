"""Snakemake wrapper for gpuasm-scan: screen reads for adapters, primers and
virus signatures (exhaustive approximate matching), write the hits as
SAM/BAM/CRAM, a per-target report, MultiQC content and the clean reads."""

__author__ = "the gpuasm authors"
__copyright__ = "Copyright 2026, the gpuasm authors"
__license__ = "MIT"

from shlex import quote

from snakemake.shell import shell

# stderr to the log, its path quoted (log_fmt_shell leaves it bare)
log = "2> {}".format(quote(str(snakemake.log[0]))) if snakemake.log else ""
extra = snakemake.params.get("extra", "")

reads = snakemake.input.reads
if isinstance(reads, str):
    reads = [reads]
if len(reads) not in (1, 2):
    raise ValueError("gpuasm-scan: input.reads takes one file, or R1 and R2")
targets = snakemake.input.targets

# Named outputs, each optional but the alignment.
out = snakemake.output
aln = out.get("aln", None) or out[0]
opts = []
for key, flag in (("report", "--report"), ("multiqc", "--multiqc"), ("stats", "--stats"),
                  ("matched", "--matched"), ("matched2", "--matched2"),
                  ("unmatched", "--unmatched-reads"), ("unmatched2", "--unmatched-reads2")):
    path = out.get(key, None)
    if path:
        opts.append("{} {}".format(flag, quote(path)))

# Sample name: params.sample, else the sample wildcard, else gpuasm's default.
sample = snakemake.params.get("sample", None) or snakemake.wildcards.get("sample", None)
if sample:
    opts.append("--sample {}".format(quote(sample)))
# Scatter: params.shard = "I/N", else the wildcards shard (I) and n_shards (N)
# when the rule's outputs have both.
shard = snakemake.params.get("shard", None)
if not shard and snakemake.wildcards.get("shard", None) and snakemake.wildcards.get("n_shards", None):
    shard = "{}/{}".format(snakemake.wildcards.shard, snakemake.wildcards.n_shards)
if shard:
    opts.append("--shard {}".format(quote(str(shard))))

# -@ as samtools: extra threads beyond the first.
threads = max(snakemake.threads - 1, 0)

shell(
    "gpuasm-scan {extra} -@ {threads} {opts} -o {aln:q} {reads} {targets:q} {log}",
    opts=" ".join(opts),
    reads=" ".join(quote(r) for r in reads),
)
