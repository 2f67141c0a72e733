#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Command line: help, version, exit codes, option values.

setup() {
    load helpers
}

@test "--help prints usage on stdout and exits 0" {
    run --separate-stderr scan --help
    strip_summary
    assert_success
    assert_output --partial "gpuasm-scan"
    assert_output --partial "--max-diffs"
    assert_output --partial "--device"
    assert_equal "$stderr" ""
}

@test "-h is --help" {
    run --separate-stderr scan --help
    strip_summary
    local help=$output
    run --separate-stderr scan -h
    strip_summary
    assert_success
    assert_equal "$output" "$help"
}

@test "--version prints the program and htslib versions" {
    run --separate-stderr scan --version
    strip_summary
    assert_success
    assert_line --index 0 --regexp '^gpuasm-scan [0-9]+\.[0-9]+'
    assert_line --regexp '^htslib [0-9]+\.[0-9]+'
    if [ -n "${GPUASM_VERSION:-}" ]; then
        assert_line --index 0 "gpuasm-scan $GPUASM_VERSION"
    fi
}

@test "-V is --version" {
    run scan -V
    assert_success
    assert_line --index 0 --regexp '^gpuasm-scan '
}

@test "a good run exits 0 and writes SAM to stdout" {
    run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_line --index 0 --regexp '^@HD'
    assert_equal "$stderr" ""
}

@test "no arguments: exit 1, usage on stderr, nothing on stdout" {
    run --separate-stderr scan
    strip_summary
    assert_equal "$status" 1
    assert_equal "$output" ""
    [ -n "$stderr" ]
}

@test "one positional argument: exit 1" {
    run --separate-stderr scan "$READS"
    strip_summary
    assert_equal "$status" 1
    assert_equal "$output" ""
    [ -n "$stderr" ]
}

@test "four positional arguments: exit 1" {
    run --separate-stderr scan --device cpu "$READS" "$READS" "$TARGETS" "$TARGETS"
    strip_summary
    assert_only_error "expected <reads> [<reads2>] <targets.fa>"
    assert_equal "$output" ""
}

@test "unknown option: exit 1, one line naming it" {
    run --separate-stderr scan --no-such-option "$READS" "$TARGETS"
    strip_summary
    assert_one_error "no-such-option"
    assert_equal "$output" ""
}

@test "unknown short option: exit 1" {
    run --separate-stderr scan -Z "$READS" "$TARGETS"
    strip_summary
    assert_equal "$status" 1
    assert_equal "$output" ""
}

@test "option without its value: exit 1" {
    run --separate-stderr scan "$READS" "$TARGETS" -k
    strip_summary
    assert_equal "$status" 1
    assert_equal "$output" ""
}

@test "a long option without its value is named (both commands: cli/options.c)" {
    # getopt gives a long-only option's value, not a letter: the message
    # names the option as given (it printed a control character before)
    for opt in --stats --device --verbosity --batch-size; do
        run --separate-stderr scan "$opt"
        assert_equal "$status" 1
        assert_equal "$stderr" "gpuasm-scan: option $opt needs a value"
        run --separate-stderr "$GPUASM_SIGNAL" "$opt"
        assert_equal "$status" 1
        assert_equal "$stderr" "gpuasm-signal: option $opt needs a value"
    done
    run --separate-stderr scan --progress=3
    assert_equal "$stderr" "gpuasm-scan: unknown option --progress=3 (see --help)"
    run --separate-stderr scan -k
    assert_equal "$stderr" "gpuasm-scan: option -k needs a value"
}

# Each bad value: exit 1, one line on stderr that names the option's value,
# nothing on stdout.
bad_value() {
    run --separate-stderr scan --device cpu "$@" "$READS" "$TARGETS"
    strip_summary
    assert_one_error
    assert_equal "$output" ""
}

@test "bad -k values" {
    bad_value -k -1
    bad_value -k abc
    bad_value -k 3x
    bad_value -k ""
    bad_value --max-diffs 99999999999999999999
}

@test "bad -e values" {
    bad_value -e abc
    bad_value -e -0.1
    bad_value -e 0.1x
    bad_value --error-rate nan
}

@test "bad --pattern, --device, -O values" {
    bad_value --pattern bogus
    bad_value --device bogus
    bad_value --device cuda:x
    bad_value -O bogus
}

@test "bad -@ and --batch-size values" {
    bad_value -@ abc
    bad_value -@ -1
    bad_value --batch-size abc
    bad_value --batch-size 0
    bad_value --batch-size 10X
}

@test "--batch-size accepts k, M and G suffixes" {
    run --separate-stderr scan --device cpu --no-PG --batch-size 2k "$READS" "$TARGETS"
    strip_summary
    assert_success
    run --separate-stderr scan --device cpu --no-PG --batch-size 1M "$READS" "$TARGETS"
    strip_summary
    assert_success
    run --separate-stderr scan --device cpu --no-PG --batch-size 1G "$READS" "$TARGETS"
    strip_summary
    assert_success
}

@test "--device cuda without a GPU is an error" {
    if have_gpu; then skip "a GPU is present"; fi
    run --separate-stderr scan --device cuda "$READS" "$TARGETS"
    strip_summary
    assert_one_error
    assert_equal "$output" ""
}

@test "--device auto: nothing on stderr, same output as --device cpu" {
    run --separate-stderr scan --device cpu --no-PG "$READS" "$TARGETS"
    strip_summary
    assert_success
    local cpu=$output
    run --separate-stderr scan --device auto --no-PG "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$stderr" ""
    assert_equal "$output" "$cpu"
}

@test "default device is auto" {
    run --separate-stderr scan --device auto --no-PG "$READS" "$TARGETS"
    strip_summary
    local auto=$output auto_err=$stderr
    run --separate-stderr scan --no-PG "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$output" "$auto"
    assert_equal "$stderr" "$auto_err"
}

@test "tuning knobs (search/settings.h): a bad value is a one-line error naming the knob" {
    GPUASM_CUDA_GROUP=100 run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    strip_summary
    assert_one_error
    assert_equal "$stderr" "gpuasm-scan: GPUASM_CUDA_GROUP='100': expected an integer from 1 to 64"
    assert_equal "$output" ""
    GPUASM_DP_ROWS=two run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    strip_summary
    assert_one_error
    [[ "$stderr" == *"GPUASM_DP_ROWS='two'"* ]]
    GPUASM_DTW_SETS=9 run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    strip_summary
    assert_one_error
    assert_equal "$stderr" "gpuasm-scan: GPUASM_DTW_SETS='9': expected an integer from 0 to 8"
    GPUASM_CUDA_LONG_ORDER_ITEMS=-1 run --separate-stderr scan --device cpu "$READS" "$TARGETS"
    strip_summary
    assert_one_error
    assert_equal "$stderr" "gpuasm-scan: GPUASM_CUDA_LONG_ORDER_ITEMS='-1': expected an integer from 0 to 1099511627776"
    # a knob within its range changes nothing on the CPU
    run --separate-stderr scan --device cpu --no-PG "$READS" "$TARGETS"
    strip_summary
    local plain=$output
    GPUASM_CUDA_GROUP=3 GPUASM_DP_ROWS=8 run --separate-stderr scan --device cpu --no-PG "$READS" "$TARGETS"
    strip_summary
    assert_success
    assert_equal "$output" "$plain"
}
