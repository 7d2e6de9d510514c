#!/usr/bin/env bash
# The 30-minute soak of issue 3: the service (dimstream run, a child JVM, default settings) at a
# steady 2,000 events/s for 30 minutes; its RSS is printed every 30 s, then latency percentiles.
# Extra arguments are passed on (e.g. --seconds 600 for a shorter run).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/bench.sh" LatencyBenchmark --rate 2000 --seconds 1800 --warmup-seconds 30 --rss-every 30 "$@"
