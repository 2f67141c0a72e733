#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The chunked FASTQ/FASTA reader (issue #30; io/fastx_chunks.h) gives what
# htslib's own reader, record after record, gives (GPUASM_READ_SERIAL=1,
# the reader before #30): the same SAM, the same stderr, the same exit
# status, whatever the threads (-@) and the chunk size (GPUASM_READ_CHUNK).
# In a build with ISA-L (configure --with-isal, used when found) the
# chunked reader inflates plain gzip with igzip (io/inflate.h) and the
# serial one with htslib's zlib, so this is also ISA-L against zlib.

setup() {
    load helpers
    T=$BATS_TEST_TMPDIR
    # 50 copies of the sample, each read named apart: 2,100 reads, many
    # chunks of 4 KiB.
    for c in $(seq 1 50); do
        awk -v c="$c" 'NR % 4 == 1 { $1 = $1 "_" c } { print }' "$READS"
    done > "$T/big.fq"
    gzip -c "$T/big.fq" > "$T/big.fq.gz"
}

# ARGS... run serially and chunked (-@ 1 and 2, default and 4 KiB chunks):
# stdout, stderr and exit status the same each time.
same_as_serial() {
    local t ch st sc
    for t in 1 2; do
        GPUASM_READ_SERIAL=1 scan --device cpu --no-PG --unmatched -@ "$t" "$@" "$TARGETS" \
            > "$T/serial.sam" 2> "$T/serial.err" && st=0 || st=$?
        for ch in "" 4096; do
            GPUASM_READ_CHUNK=$ch scan --device cpu --no-PG --unmatched -@ "$t" "$@" "$TARGETS" \
                > "$T/chunked.sam" 2> "$T/chunked.err" && sc=0 || sc=$?
            [ "$sc" = "$st" ] || { echo "-@ $t chunk '$ch' $*: exit $sc, serially $st"; return 1; }
            cmp "$T/serial.sam" "$T/chunked.sam" || { echo "-@ $t chunk '$ch' $*: SAM differs"; return 1; }
            diff "$T/serial.err" "$T/chunked.err" || { echo "-@ $t chunk '$ch' $*: stderr differs"; return 1; }
        done
    done
}

@test "FASTQ plain, gzip, gzip of two members and BGZF: the serial reader's output" {
    same_as_serial "$T/big.fq"
    [ "$(records "$T/chunked.sam" | wc -l)" -ge 2100 ]
    same_as_serial "$T/big.fq.gz"
    cat "$T/big.fq.gz" "$T/big.fq.gz" > "$T/two.fq.gz"
    same_as_serial "$T/two.fq.gz"
    [ "$(records "$T/chunked.sam" | wc -l)" -ge 4200 ]
    # BGZF: its blocks inflated on the -@ threads
    bgzf "$T/big.fq" "$T/bgzf.fq.gz"
    same_as_serial "$T/bgzf.fq.gz"
}

@test "FASTA gzip and paired gzip files: the serial reader's output" {
    fq2fa "$T/big.fq" | gzip -c > "$T/big.fa.gz"
    same_as_serial "$T/big.fa.gz"
    awk 'NR % 4 == 2 { n = split($0, s, ""); r = ""; for (i = n; i; i--) r = r s[i]; $0 = r } { print }' \
        "$T/big.fq" | gzip -c > "$T/r2.fq.gz"
    same_as_serial "$T/big.fq.gz" "$T/r2.fq.gz"
}

@test "gzip on stdin: the serial reader's output" {
    GPUASM_READ_SERIAL=1 scan --device cpu --no-PG -@ 2 - "$TARGETS" < "$T/big.fq.gz" > "$T/serial.sam"
    GPUASM_READ_CHUNK=4096 scan --device cpu --no-PG -@ 2 - "$TARGETS" < "$T/big.fq.gz" > "$T/chunked.sam"
    cmp "$T/serial.sam" "$T/chunked.sam"
}

@test "a cut or damaged gzip file: the serial reader's exit status, output and message" {
    local s
    s=$(stat -c %s "$T/big.fq.gz")
    head -c $((s / 2)) "$T/big.fq.gz" > "$T/cut.fq.gz"
    cp "$T/big.fq.gz" "$T/crc.fq.gz"
    printf '\000\000' | dd of="$T/crc.fq.gz" bs=1 seek=$((s - 8)) conv=notrunc 2> /dev/null
    for f in cut crc; do
        for v in SERIAL=1 CHUNK=4096; do
            run --separate-stderr env "GPUASM_READ_$v" "$GPUASM_SCAN" --device cpu --no-PG -@ 2 \
                "$T/$f.fq.gz" "$TARGETS"
            assert_one_error "$f.fq.gz" "record "
            printf '%s\n' "$output" > "$T/$f.${v%=*}.sam"
            # htslib's own [E::] lines come only from its zlib reader: ours is the last line
            echo "${stderr_lines[-1]}" > "$T/$f.${v%=*}"
        done
        cmp "$T/$f.SERIAL.sam" "$T/$f.CHUNK.sam"
        diff "$T/$f.SERIAL" "$T/$f.CHUNK"
    done
}
