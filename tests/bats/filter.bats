#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --filter (issue #16): the exact pigeonhole filters never change a byte.
# Every --filter value (auto, on, pieces, index) must write the SAM of
# --filter off, on seeded random inputs made for the filters' edge cases
# (tests/bats/filter_data.py: IUPAC codes and N runs in targets, N in
# reads, both strands, reads and primers running off an end: partial
# occurrences, targets too short to cut, a repeated stretch) and on real
# data, with -k and -e, best and --all, edit and hamming; and --stats must
# show that the filter ran (index_strands, pieces_dropped > 0), so that
# equal bytes are not the trivial equality of two exhaustive runs.
# The proof that no hit is lost is in walk/prefilter.h.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

@test "random genomes (IUPAC, N runs, reads off the ends, N in reads): every --filter = off" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" genomes 16 "$T"
    local o
    for o in "" "--all" "-k 3" "-k 9 --all" "-e 0.05" "-e 0.12 --all" "--strand forward --all" \
             "--read-overlap full --all" "--mode hamming --all" "--mode hamming -k 2"; do
        # shellcheck disable=SC2086
        filter_equal g "$T/g.fq" "$T/g.fa" $o
        [ "$(stats_value "$T/g.index.json" index_strands)" -gt 0 ] || { echo "index not used: $o"; return 1; }
    done
    # e = 0.2 cuts reads into pieces shorter than the index's q: searched whole
    filter_equal g "$T/g.fq" "$T/g.fa" -e 0.2 --all
    [ "$(stats_value "$T/g.index.json" index_strands)" -eq 0 ]
    [ "$(stats_value "$T/g.index.json" index_declined)" -gt 0 ]
}

@test "reads running off target ends (the ends pass through the index; IUPAC near ends, N in reads): every --filter = off" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" ends 16 "$T"
    local o
    for o in "" "--all" "-e 0.05" "-e 0.08 --all" "-e 0.1" "-k 5 --all" "--read-overlap 30 -e 0.05 --all" \
             "--read-overlap 120 --all" "--strand forward --all" "--mode hamming --all" "--mode hamming -k 3"; do
        # shellcheck disable=SC2086
        filter_equal e "$T/e.fq" "$T/e.fa" $o
        # the filter ruled items out, and partial occurrences were found
        [ "$(stats_value "$T/e.index.json" ends_skipped)" -gt 0 ] || { echo "no ends skipped: $o"; return 1; }
        grep -q 'XP:Z:target' "$T/e.off.sam" || { echo "no partial occurrence: $o"; return 1; }
    done
    # --filter off rules nothing out; pieces shorter than the index's q
    # (--read-overlap 10 at -e 0.1: 5 bases; -e 0.12: at most 6) leave
    # every end to the DP
    for o in "--read-overlap 10 --all" "-e 0.12 --all"; do
        # shellcheck disable=SC2086
        filter_equal e "$T/e.fq" "$T/e.fa" $o
        [ "$(stats_value "$T/e.index.json" ends_skipped)" -eq 0 ]
        [ "$(stats_value "$T/e.index.json" ends_run)" -gt 0 ]
    done
    scan --device cpu --filter off --stats "$T/off.json" "$T/e.fq" "$T/e.fa" > /dev/null
    [ "$(stats_value "$T/off.json" ends_skipped)" -eq 0 ]
}

@test "random primers (IUPAC, too short to cut, cut off at read ends, N): every --filter = off" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" primers 16 "$T"
    local o
    for o in "" "--all" "-k 2" "-e 0.15 --all" "--overlap full" "--overlap 5 --all" \
             "--mode hamming --all" "--mode hamming -k 1"; do
        # shellcheck disable=SC2086
        filter_equal p "$T/p.fq" "$T/p.fa" $o
        [ "$(stats_value "$T/p.pieces.json" pieces_dropped)" -gt 0 ] || { echo "pieces filter dropped nothing: $o"; return 1; }
    done
}

@test "a second seed, --match-read-wildcards (reads with N: not cut) and --pattern read" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" genomes 1602 "$T"
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" primers 1602 "$T"
    filter_equal g "$T/g.fq" "$T/g.fa" --all
    filter_equal gw "$T/g.fq" "$T/g.fa" --match-read-wildcards --all
    filter_equal pw "$T/p.fq" "$T/p.fa" --match-read-wildcards
    filter_equal pr "$T/p.fq" "$T/p.fa" --pattern target -k 2 --all
}

@test "real data: Hm2 reads vs the four genomes and illumina reads vs the bbmap adapters: every --filter = off" {
    require_shared_data
    local D=$GPUASM_SHARED_DATA
    cat "$D/genomes/measles_K01711.1.fasta" "$D/genomes/ebola_G5012.3_consensus.fasta" \
        "$D/genomes/phiX174_NC_001422.1.fasta" "$D/genomes/lambda_NC_001416.1.fasta" > "$T/g4.fa"
    gzip -dc "$D/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz" | head -n 2400 > "$T/hm2.fq"
    filter_equal hm2 "$T/hm2.fq" "$T/g4.fa" --all
    [ "$(stats_value "$T/hm2.index.json" index_strands)" -gt 500 ]
    filter_equal hm2k "$T/hm2.fq" "$T/g4.fa" -e 0.05
    filter_equal hm2h "$T/hm2.fq" "$T/g4.fa" --mode hamming --all
    sed '/^>/ s/[[:space:]]/_/g' "$D/adapters/bbmap_adapters.fa" > "$T/ad.fa"
    gzip -dc "$D/reads/trimgalore/illumina_10K.reads1-4000.fastq.gz" | head -n 4000 > "$T/ill.fq"
    filter_equal ill "$T/ill.fq" "$T/ad.fa" --all
    [ "$(stats_value "$T/ill.pieces.json" pieces_dropped)" -gt 1000 ]
    gzip -dc "$D/reads/trimgalore/4_seqs_with_Ns.fastq.gz" > "$T/n.fq"
    filter_equal n "$T/n.fq" "$T/ad.fa" --all -e 0.2
}

@test "--stats and --verbosity 4 name the filter; off runs no filter" {
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" genomes 16 "$T"
    scan --device cpu --filter off --stats "$T/off.json" -o /dev/null "$T/g.fq" "$T/g.fa"
    scan --device cpu --stats "$T/auto.json" -o /dev/null "$T/g.fq" "$T/g.fa"
    run "$PYTHON3" - "$T/off.json" "$T/auto.json" <<'PY'
import json, sys
off, auto = (json.load(open(p)) for p in sys.argv[1:3])
assert off["filter"] == "off" and off["filter_plan"] == "off: exhaustive", off
assert off["index_strands"] == off["pieces_kept"] == off["pieces_dropped"] == 0, off
assert auto["filter"] == "auto", auto
assert auto["filter_plan"].startswith("auto: pieces (q 6-8) + index (q 8-16, "), auto
assert auto["index_strands"] + auto["index_declined"] > 0, auto
PY
    assert_success
    run --separate-stderr scan --device cpu --verbosity 4 --filter index -o /dev/null "$T/g.fq" "$T/g.fa"
    assert_success
    [[ "$stderr" == *"gpuasm-scan: info: filter index: index (q 8-16, "* ]]
}

@test "--filter: a bad value is a one-line error; past the index bound auto scans without it, index refuses" {
    run --separate-stderr scan --device cpu --filter fast "$READS" "$TARGETS"
    assert_failure 1
    assert_equal "$stderr" "gpuasm-scan: invalid --filter 'fast' (expected auto, off, on, pieces or index)"
    "$PYTHON3" "$GPUASM_TESTS_DIR/bats/filter_data.py" genomes 16 "$T"
    scan --device cpu --no-PG --filter off "$T/g.fq" "$T/g.fa" > "$T/off.sam"
    GPUASM_CPU_INDEX_MAX=1000 scan --device cpu --no-PG --stats "$T/s.json" "$T/g.fq" "$T/g.fa" > "$T/auto.sam"
    cmp "$T/off.sam" "$T/auto.sam"
    [[ "$(stats_value "$T/s.json" filter_plan)" == "auto: pieces (q 6-8) + no index ("*"past the bound of 1000 windows"* ]]
    GPUASM_CPU_INDEX_MAX=1000 run --separate-stderr scan --device cpu --filter index "$T/g.fq" "$T/g.fa"
    assert_one_error "too large for the q-gram index"
}
