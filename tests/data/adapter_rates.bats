#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Screening answers on real libraries (issue #26): with its defaults,
# gpuasm-scan flags a fraction of reads as carrying one of the 158 bbmap
# adapters that lies between BBDuk's (k-mers: k=23 mink=11 hdist=1
# ktrim=r) and cutadapt's (-a file:..., whose -O 3 default counts 3-base
# chance matches), for each library of ../shared/data; and on those real
# outputs every read's records are best first, the primary the best
# (tests/data/check_order.py).  The table in README "Chance and the
# significance floor" is what this prints.

setup_file() {
    load ../bats/helpers
    [ -d "$GPUASM_SHARED_DATA/oracles" ] || return 0
    local D=$GPUASM_SHARED_DATA/reads O=$BATS_FILE_TMPDIR
    zcat "$D/trimgalore/illumina_10K.reads1-4000.fastq.gz" > "$O/illumina.fq"
    zcat "$D/trimgalore/nextera_100K.reads1-4000.fastq.gz" > "$O/nextera.fq"
    zcat "$D/trimgalore/smallRNA_100K.reads1-4000.fastq.gz" > "$O/smallRNA.fq"
    # R1 and R2 as single-end reads, named apart (_r1, _r2: a run of one
    # name is one read to check_order.py)
    mates() { awk -v s="$1" 'NR % 4 == 1 { $1 = $1 s } { print }'; }
    { zcat "$D/measles_sequana/Hm2_GTGAAA_L005_R1_001.fastq.gz" | mates _r1
      zcat "$D/measles_sequana/Hm2_GTGAAA_L005_R2_001.fastq.gz" | mates _r2; } > "$O/measles.fq"
    { mates _r1 < "$D/phix_strobealign/phix.1.fastq"; mates _r2 < "$D/phix_strobealign/phix.2.fastq"; } > "$O/phix.fq"
    if command -v samtools >/dev/null 2>&1; then
        samtools fastq "$D/ebola_viralngs/G5012.3.subset.bam" 2>/dev/null > "$O/ebola.fq"
    fi
}

setup() {
    load ../bats/helpers
    require_shared_data
    A=$GPUASM_SHARED_DATA/adapters/bbmap_adapters.fa
    O=$BATS_FILE_TMPDIR
}

# rates LIB: "reads gpuasm bbduk cutadapt" (reads with an adapter each)
rates() {
    local lib=$O/$1.fq n g b c
    n=$(($(wc -l < "$lib") / 4))
    scan --quiet -@ 2 --stats "$O/$1.json" -o "$O/$1.sam" "$lib" "$A"
    g=$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["reads_with_hits"])' "$O/$1.json")
    b=$(bbduk.sh in="$lib" out=/dev/null ref="$A" k=23 mink=11 hdist=1 ktrim=r threads=2 2>&1 |
        awk '$1 == "KTrimmed:" { print $2 }')
    c=$(cutadapt -j 2 -a "file:$A" -o /dev/null "$lib" 2>&1 |
        sed -n 's/^Reads with adapters: *\([0-9,]*\).*/\1/p' | tr -d ,)
    echo "$n $g $b $c"
}

check_library() {
    command -v bbduk.sh >/dev/null 2>&1 || skip "BBDuk not installed (Debian: bbmap)"
    command -v cutadapt >/dev/null 2>&1 || skip "cutadapt not installed"
    [ -s "$O/$1.fq" ] || skip "$1: no reads (samtools fastq?)"
    local r
    r=$(rates "$1")
    read -r n g b c <<< "$r"
    echo "# $1: $n reads; gpuasm $g, BBDuk $b, cutadapt $c" >&3
    [ -n "$b" ] && [ -n "$c" ] && [ "$n" -gt 0 ]
    [ "$b" -le "$g" ] && [ "$g" -le "$c" ] || {
        echo "$1: gpuasm $g not between BBDuk $b and cutadapt $c"
        return 1
    }
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/check_order.py" "$O/$1.sam"
    assert_success
}

@test "illumina_10K: between BBDuk and cutadapt; records best first" { check_library illumina; }
@test "nextera: between BBDuk and cutadapt; records best first" { check_library nextera; }
@test "smallRNA: between BBDuk and cutadapt; records best first" { check_library smallRNA; }
@test "measles Hm2 R1+R2: between BBDuk and cutadapt; records best first" { check_library measles; }
@test "Ebola G5012.3: between BBDuk and cutadapt; records best first" { check_library ebola; }
@test "phiX: between BBDuk and cutadapt; records best first" { check_library phix; }

@test "--all on real reads against adapters and the measles genome: records best first, primary the best" {
    local g=$GPUASM_SHARED_DATA/genomes/measles_K01711.1.fasta
    cat "$A" "$g" > "$O/both.fa"
    scan --quiet -@ 2 --all -o "$O/all.sam" "$O/measles.fq" "$O/both.fa"
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/check_order.py" "$O/all.sam"
    assert_success
    assert_output --regexp 'reads with secondary records: all best first'
    # the check can fail: a primary that is not the best
    "$PYTHON3" - "$O/all.sam" > "$O/bad.sam" <<'PY'
import sys
done = False
for line in open(sys.argv[1]):
    f = line.split("\t")
    if not done and not line.startswith("@") and int(f[1]) & 256:
        f[1] = str(int(f[1]) - 256)
        done = True
    sys.stdout.write("\t".join(f))
PY
    run "$PYTHON3" "$GPUASM_TESTS_DIR/data/check_order.py" "$O/bad.sam"
    assert_failure
}
