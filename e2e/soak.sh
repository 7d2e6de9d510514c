#!/usr/bin/env bash
# The long run of issue 34 (SoakBenchmark): dimstream run and dimstream admin (child JVMs) at a
# steady 2,000 events/s for 2 hours, with the memory pruned every minute, a live replay every 3
# minutes and the admin's API read every 5 s; RSS, heap, threads, open files, PostgreSQL
# connections, topic lag and p99 latency sampled every 30 s; at the end the table is compared with
# the reference model and each series judged flat or not; docs/benchmarks-soak.tsv and .svg written.
# Extra arguments are passed on: --minutes 30 for a shorter run, --rate, --out, ... (see SoakBenchmark).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/bench.sh" SoakBenchmark "$@"
