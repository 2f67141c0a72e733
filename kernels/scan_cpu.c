/* scan_cpu.c -- PLACEHOLDER until the scan twin lands (issue #4). */
#include <stdlib.h>
#include "search.h"
#include "twin.h"
static void *scan_open(const gpuasm_search_opt *opt) { (void)opt; return malloc(1); }
static int scan_pair(void *ws, const gpuasm_twin_pair *p, gpuasm_emit_fn emit, void *ctx)
{ (void)ws; (void)p; (void)emit; (void)ctx; return -1; }
static void scan_close(void *ws) { free(ws); }
const gpuasm_twin gpuasm_twin_scan = { "scan", scan_open, scan_pair, scan_close };
