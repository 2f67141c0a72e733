#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The CPU backend's SIMD lanes and pigeonhole filter (issue #13) from the
# command line: every SIMD level (GPUASM_CPU_SIMD, capped at what this
# processor has), with and without the filter and with text lanes forced on
# every read (GPUASM_CPU_LANE_MIN=1), writes the same bytes; --stats and
# the device description name the level.  tests/c/test_lanes holds the
# lanes to the scalar twin and the naive DP pair by pair.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
}

# SAM of every knob setting against the scalar run without the filter.
same_everywhere() {
    local name=$1
    shift
    GPUASM_CPU_SIMD=0 GPUASM_CPU_PREFILTER=0 scan --device cpu --no-PG "$@" > "$T/$name.ref.sam"
    [ "$(grep -vc '^@' "$T/$name.ref.sam")" -gt 0 ]
    local s f l
    for s in 0 1 2 3; do
        for f in 0 1 2; do
            for l in "" 1; do
                GPUASM_CPU_SIMD=$s GPUASM_CPU_PREFILTER=$f GPUASM_CPU_LANE_MIN=$l \
                    scan --device cpu --no-PG -@ 2 "$@" > "$T/$name.$s$f$l.sam"
                cmp "$T/$name.ref.sam" "$T/$name.$s$f$l.sam" ||
                    { echo "differs: GPUASM_CPU_SIMD=$s GPUASM_CPU_PREFILTER=$f GPUASM_CPU_LANE_MIN=$l $*"; return 1; }
            done
        done
    done
}

@test "sample: every SIMD level, filter on/off, text lanes forced: the same SAM" {
    for opts in "" "--all" "--pattern target -k 3" "--pattern read -e 0.2" \
                "--match-read-wildcards --all" "--mode hamming --all" "--mode hamming --pattern read -k 4"; do
        # shellcheck disable=SC2086
        same_everywhere sample $opts "$READS" "$TARGETS"
    done
    diff -u "$EXPECTED_SAM" <(GPUASM_CPU_SIMD=3 scan --device cpu --no-PG "$READS" "$TARGETS")
}

@test "--stats and the device name give the SIMD level; GPUASM_CPU_SIMD=0 is scalar" {
    GPUASM_CPU_SIMD=0 scan --device cpu --stats "$T/s0.json" -o /dev/null "$READS" "$TARGETS"
    scan --device cpu --stats "$T/s.json" -o /dev/null "$READS" "$TARGETS"
    run "$PYTHON3" - "$T/s0.json" "$T/s.json" <<'PY'
import json, sys
s0, s = (json.load(open(p)) for p in sys.argv[1:3])
assert s0["simd"] == "scalar" and s0["device"] == "cpu (1 thread, scalar)", s0
assert s["simd"] in ("avx512", "avx2", "sse4.1", "scalar"), s
assert s["device"] == "cpu (1 thread, %s)" % s["simd"], s
print(s["simd"])
PY
    assert_success
}

@test "GPUASM_CPU_SIMD, _PREFILTER, _LANE_MIN out of range: one-line errors naming the knob" {
    GPUASM_CPU_SIMD=4 run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    assert_failure 1
    assert_equal "$stderr" "gpuasm-scan: GPUASM_CPU_SIMD='4': expected an integer from 0 to 3"
    assert_equal "$output" ""
    GPUASM_CPU_PREFILTER=yes run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    assert_failure 1
    assert_equal "$stderr" "gpuasm-scan: GPUASM_CPU_PREFILTER='yes': expected an integer from 0 to 2"
    GPUASM_CPU_LANE_MIN=0 run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    assert_failure 1
    [[ "$stderr" == "gpuasm-scan: GPUASM_CPU_LANE_MIN='0': expected an integer from 1 to "* ]]
}

@test "real data: Hm2 reads vs the four genomes, every SIMD level: the same SAM" {
    require_shared_data
    local D=$GPUASM_SHARED_DATA
    cat "$D/genomes/measles_K01711.1.fasta" "$D/genomes/ebola_G5012.3_consensus.fasta" \
        "$D/genomes/phiX174_NC_001422.1.fasta" "$D/genomes/lambda_NC_001416.1.fasta" > "$T/g4.fa"
    gzip -dc "$D/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz" | head -n 2000 > "$T/hm2.fq"
    GPUASM_CPU_SIMD=0 scan --device cpu --no-PG --all "$T/hm2.fq" "$T/g4.fa" > "$T/ref.sam"
    [ "$(grep -vc '^@' "$T/ref.sam")" -gt 300 ]
    for s in 1 2 3; do
        GPUASM_CPU_SIMD=$s scan --device cpu --no-PG -@ 2 --all "$T/hm2.fq" "$T/g4.fa" > "$T/s$s.sam"
        cmp "$T/ref.sam" "$T/s$s.sam"
    done
}

@test "real data: illumina reads vs the 158 bbmap adapters, every level and filter: the SAM of --kernel dp" {
    require_shared_data
    local D=$GPUASM_SHARED_DATA
    sed '/^>/ s/[[:space:]]/_/g' "$D/adapters/bbmap_adapters.fa" > "$T/ad.fa"
    gzip -dc "$D/reads/trimgalore/illumina_10K.reads1-4000.fastq.gz" | head -n 4800 > "$T/ill.fq"
    # the dp kernel shares no code with Myers' lanes, filter or twin
    scan --device cpu --no-PG -@ 2 --kernel dp --all "$T/ill.fq" "$T/ad.fa" > "$T/dp.sam"
    [ "$(grep -vc "^@" "$T/dp.sam")" -gt 200 ]
    for s in 0 1 2 3; do
        for f in 0 1 2; do
            GPUASM_CPU_SIMD=$s GPUASM_CPU_PREFILTER=$f scan --device cpu --no-PG -@ 2 --all \
                "$T/ill.fq" "$T/ad.fa" > "$T/s$s$f.sam"
            cmp "$T/dp.sam" "$T/s$s$f.sam"
        done
    done
}

@test "real data, --mode hamming: the pigeonhole filters (on, everywhere) give the plain twin's SAM" {
    require_shared_data
    local D=$GPUASM_SHARED_DATA
    sed '/^>/ s/[[:space:]]/_/g' "$D/adapters/bbmap_adapters.fa" > "$T/ad.fa"
    gzip -dc "$D/reads/trimgalore/illumina_10K.reads1-4000.fastq.gz" > "$T/ill.fq"
    cat "$D/genomes/measles_K01711.1.fasta" "$D/genomes/ebola_G5012.3_consensus.fasta" \
        "$D/genomes/phiX174_NC_001422.1.fasta" "$D/genomes/lambda_NC_001416.1.fasta" > "$T/g4.fa"
    gzip -dc "$D/reads/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz" > "$T/hm2.fq"
    for pair in "ill.fq ad.fa 500" "hm2.fq g4.fa 200"; do
        set -- $pair
        GPUASM_CPU_PREFILTER=0 scan --device cpu --no-PG -@ 2 --mode hamming --all "$T/$1" "$T/$2" > "$T/ref.sam"
        [ "$(grep -vc '^@' "$T/ref.sam")" -gt "$3" ]
        for f in 1 2; do
            GPUASM_CPU_PREFILTER=$f scan --device cpu --no-PG -@ 2 --mode hamming --all "$T/$1" "$T/$2" > "$T/f$f.sam"
            cmp "$T/ref.sam" "$T/f$f.sam"
        done
    done
}
