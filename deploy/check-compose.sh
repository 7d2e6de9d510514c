#!/usr/bin/env bash
# Checks docker-compose.yml without a Docker daemon (CI has none):
#  1. `docker-compose config` accepts it (Debian's docker-compose package; secrets from .env.example);
#  2. every service that runs the dimstream image runs a verb the packaged distribution has
#     (`bin/dimstream VERB --help` prints that verb's usage);
#  3. the config file each such service mounts is valid with exactly the environment compose
#     gives that service (`bin/dimstream config --config FILE --offline` under `env -i`: the
#     database is not there to ask for its catalog of added columns), with real secrets
#     generated for every key of .env.example, so a secret the config names but the service lacks
#     is caught here, not at `docker-compose up`;
#  4. with .env.example's own values the same check is refused: its change-me placeholders must
#     never start a service.
# Needs cli/target/dimstream.tar.gz (./mvnw package builds it).
set -euo pipefail
cd "$(dirname "$0")/.."

dist_tar=cli/target/dimstream.tar.gz
[[ -f "$dist_tar" ]] || { echo "check-compose: $dist_tar missing; run ./mvnw -DskipTests package first" >&2; exit 1; }

resolved="$(mktemp)"
resolved_example="$(mktemp)"
secrets="$(mktemp)"
dist="$(mktemp -d)"
trap 'rm -rf "$resolved" "$resolved_example" "$secrets" "$dist"' EXIT

# every key of .env.example with a fresh random value (what an operator's .env holds)
grep -E '^[A-Z_][A-Z0-9_]*=' .env.example | while IFS='=' read -r key _; do
  echo "$key=$(python3 -c 'import secrets; print(secrets.token_hex(24))')"
done > "$secrets"

docker-compose --env-file .env.example -f docker-compose.yml config > "$resolved_example"
docker-compose --env-file "$secrets" -f docker-compose.yml config > "$resolved"
echo "check-compose: docker-compose config: ok"

tar -xzf "$dist_tar" -C "$dist"

python3 - "$resolved" "$resolved_example" "$dist/dimstream/bin/dimstream" <<'PY'
import os, subprocess, sys, yaml

resolved, resolved_example, launcher = sys.argv[1], sys.argv[2], sys.argv[3]
doc = yaml.safe_load(open(resolved))
example = yaml.safe_load(open(resolved_example))
checked = 0
for name, svc in sorted(doc["services"].items()):
    if svc.get("image") != "dimstream:local":
        continue
    cmd = svc.get("command") or []
    if not cmd:
        sys.exit(f"check-compose: service {name} runs the dimstream image without a command")
    verb = cmd[0]
    # picocli prints the top-level help, exit 0, for an unknown verb followed by --help
    usage = subprocess.run([launcher, verb, "--help"], capture_output=True, text=True)
    if not usage.stdout.startswith(f"Usage: dimstream {verb} "):
        sys.exit(f"check-compose: service {name} runs 'dimstream {verb}', which the distribution does not have")
    # the config file the service mounts, checked on the host with the service's environment only
    config = cmd[cmd.index("--config") + 1] if "--config" in cmd else None
    if config:
        host = None
        for v in svc.get("volumes", []):
            if isinstance(v, dict) and v.get("target") == config:
                host = v["source"]
            elif isinstance(v, str) and v.split(":")[1] == config:
                host = v.split(":")[0]
        if host is None:
            sys.exit(f"check-compose: service {name} reads {config}, which no volume mounts")
        env = {"PATH": os.environ["PATH"]}
        if "JAVA_HOME" in os.environ:
            env["JAVA_HOME"] = os.environ["JAVA_HOME"]
        env.update({k: str(v) for k, v in (svc.get("environment") or {}).items() if k != "JAVA_OPTS"})
        run = subprocess.run([launcher, "config", "--config", host, "--offline"], capture_output=True, text=True, env=env)
        if run.returncode != 0:
            sys.exit(f"check-compose: service {name}: its config {config} is refused: {run.stderr.strip()}")
        # the same with .env.example's placeholders: must be refused, naming them
        env.update({k: str(v) for k, v in (example["services"][name].get("environment") or {}).items() if k != "JAVA_OPTS"})
        placeholders = subprocess.run([launcher, "config", "--config", host, "--offline"], capture_output=True, text=True, env=env)
        if placeholders.returncode != 2 or "still a placeholder" not in placeholders.stderr:
            sys.exit(f"check-compose: service {name}: {config} accepts .env.example's placeholder secrets: {placeholders.stderr.strip()}")
    print(f"check-compose: service {name}: dimstream {verb}: ok" + (f", {config} valid in its environment, "
                                                                      f"refused with .env.example's placeholders" if config else ""))
    checked += 1
if checked == 0:
    sys.exit("check-compose: no service runs the dimstream image")
PY
