#!/usr/bin/env bash
# Runs one of the benchmark harnesses of e2e (not tests): builds the modules with the reactor
# (no `install`), then runs the class with the runtime classpath.
#   e2e/bench.sh LatencyBenchmark --rate 5000 --seconds 120
#   e2e/bench.sh PipelineBenchmark --events 1000000 --keys 100000 --naive 20000
#   e2e/bench.sh WriterBenchmark --rows 1000000 --batches 10000,100000 --runs 3 --parallel 2
#   e2e/bench.sh LoadBenchmark --rows 500000 --changes 100000 --runs 3   (needs CHECKPOINT rights)
#   e2e/bench.sh SwapBenchmark --rows 1000000 --keys 250000 --runs 3     (the shadow swap's lock time)
#   e2e/bench.sh TransactionTimeBenchmark --rows 1000000 --batch 100000 --rounds 8 --late-percent 10
#                                           (the writer with transaction time against without, needs CHECKPOINT rights)
#   e2e/bench.sh ResumeBenchmark --kills 5 --rate 1000      (SIGKILL and restart: seconds until rows land again)
#   e2e/bench.sh RollingRestartBenchmark --rate 2000 --warmup-seconds 60 --pause-seconds 30
#                                           (two instances restarted in turn: per-second p99, docs/benchmarks-rolling-restart.svg)
# Every harness takes --jdbc URL (default: local dimstream_bench as postgres/postgres).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
main="${1:?usage: e2e/bench.sh CLASS [--name value ...]}"; shift
(cd "$root" && ./mvnw -q -B -DskipTests package dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime -pl e2e -am) >&2
# shellcheck disable=SC2086 # JAVA_OPTS holds several words on purpose
exec java ${JAVA_OPTS:-} -cp "$root/e2e/target/classes:$(cat "$root/e2e/target/classpath.txt")" "io.dimstream.bench.$main" "$@"
