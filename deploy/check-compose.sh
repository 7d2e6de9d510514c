#!/usr/bin/env bash
# Checks docker-compose.yml without a Docker daemon (CI has none):
#  1. `docker-compose config` accepts it (Debian's docker-compose package; secrets from .env.example);
#  2. every service that runs the dimstream image runs a verb the packaged distribution has
#     (`bin/dimstream VERB --help` prints that verb's usage), and the mounted config file is valid
#     (`bin/dimstream config --config deploy/dimstream.yml`).
# Needs cli/target/dimstream.tar.gz (./mvnw package builds it).
set -euo pipefail
cd "$(dirname "$0")/.."

dist_tar=cli/target/dimstream.tar.gz
[[ -f "$dist_tar" ]] || { echo "check-compose: $dist_tar missing; run ./mvnw -DskipTests package first" >&2; exit 1; }

resolved="$(mktemp)"
dist="$(mktemp -d)"
trap 'rm -rf "$resolved" "$dist"' EXIT

docker-compose --env-file .env.example -f docker-compose.yml config > "$resolved"
echo "check-compose: docker-compose config: ok"

tar -xzf "$dist_tar" -C "$dist"
launcher="$dist/dimstream/bin/dimstream"

# "service verb" for every service running the dimstream image
mapfile -t verbs < <(python3 - "$resolved" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for name, svc in sorted(doc["services"].items()):
    if svc.get("image") == "dimstream:local":
        cmd = svc.get("command") or []
        if not cmd:
            sys.exit(f"service {name} runs the dimstream image without a command")
        print(name, cmd[0])
PY
)
[[ ${#verbs[@]} -gt 0 ]] || { echo "check-compose: no service runs the dimstream image" >&2; exit 1; }
for line in "${verbs[@]}"; do
  read -r service verb <<<"$line"
  # (picocli prints the top-level help, exit 0, for an unknown verb followed by --help)
  if ! "$launcher" "$verb" --help 2>&1 | head -n 1 | grep -q "^Usage: dimstream $verb "; then
    echo "check-compose: service '$service' runs 'dimstream $verb', which the distribution does not have" >&2
    exit 1
  fi
  echo "check-compose: service $service: dimstream $verb: ok"
done

set -a
# shellcheck disable=SC1091
source .env.example
set +a
"$launcher" config --config deploy/dimstream.yml > /dev/null
echo "check-compose: deploy/dimstream.yml: ok"
