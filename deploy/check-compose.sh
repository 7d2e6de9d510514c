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
#     never start a service;
#  5. the monitoring services (prometheus, grafana): every file or directory they mount from the
#     repository exists and each file in it parses (YAML, JSON); Prometheus' config loads the rule
#     file it mounts and scrapes the dimstream service on its --metrics-port; Grafana's datasource
#     points at the prometheus service and its dashboard provider at the mounted dashboards, whose
#     datasource uid is the provisioned one; then `promtool check rules` and `promtool check config`
#     (Debian's prometheus package, unpacked into a temporary directory, not installed: no daemon).
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

# --- 5. the monitoring services and the files they mount -------------------------------------
python3 - "$resolved" <<'PY'
import json, os, sys, yaml

doc = yaml.safe_load(open(sys.argv[1]))
services = doc["services"]
root = os.getcwd()

def fail(msg):
    sys.exit(f"check-compose: {msg}")

def mounts(name):
    """target -> host path of every bind mount from the repository"""
    out = {}
    for v in services[name].get("volumes", []):
        if isinstance(v, dict) and v.get("type") == "bind":
            out[v["target"]] = v["source"]
        elif isinstance(v, str) and v.split(":")[0].startswith(("/", ".")):
            out[v.split(":")[1]] = os.path.abspath(v.split(":")[0])
    return out

def parse(path):
    text = open(path, encoding="utf-8").read()
    try:
        return json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    except Exception as e:
        fail(f"{os.path.relpath(path, root)} does not parse: {e}")

for name in ("prometheus", "grafana"):
    if name not in services:
        fail(f"service {name} missing")
    for target, host in mounts(name).items():
        if not os.path.exists(host):
            fail(f"service {name} mounts {os.path.relpath(host, root)} at {target}, which does not exist")
        files = [host] if os.path.isfile(host) else [os.path.join(d, f) for d, _, fs in os.walk(host) for f in fs]
        if not files:
            fail(f"service {name} mounts the empty directory {os.path.relpath(host, root)}")
        for f in files:
            if f.endswith((".yml", ".yaml", ".json")):
                parse(f)
        print(f"check-compose: service {name}: {os.path.relpath(host, root)} -> {target}: exists, {len(files)} file(s) parse")

# Prometheus: its config as mounted, the rule files it names mounted, the dimstream job on the metrics port
prom = mounts("prometheus")
cmd = services["prometheus"].get("command") or []
config_target = next((a.split("=", 1)[1] for a in cmd if a.startswith("--config.file=")), "/etc/prometheus/prometheus.yml")
if config_target not in prom:
    fail(f"service prometheus reads {config_target}, which no volume mounts")
pconf = parse(prom[config_target])
for rule_file in pconf.get("rule_files", []):
    if rule_file not in prom:
        fail(f"prometheus.yml loads {rule_file}, which no volume of service prometheus mounts")
    rules = parse(prom[rule_file])
    alerts = [r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r]
    print(f"check-compose: service prometheus: {rule_file}: {len(alerts)} alerts")
dim_cmd = services["dimstream"]["command"]
metrics_port = dim_cmd[dim_cmd.index("--metrics-port") + 1]
jobs = {j["job_name"]: j for j in pconf["scrape_configs"]}
if "dimstream" not in jobs:
    fail('prometheus.yml has no scrape job named dimstream (the alert DimstreamDown reads up{job="dimstream"})')
targets = [f"{n}:{sd.get('port')}" for sd in jobs["dimstream"].get("dns_sd_configs", []) for n in sd["names"]] + \
          [t for sc in jobs["dimstream"].get("static_configs", []) for t in sc["targets"]]
if f"dimstream:{metrics_port}" not in targets:
    fail(f"prometheus.yml's job dimstream scrapes {targets}, not the dimstream service's --metrics-port {metrics_port}")
print(f"check-compose: service prometheus: job dimstream scrapes dimstream:{metrics_port}")

# Grafana: the datasource is the prometheus service; the provider's path is the mounted dashboards
graf = mounts("grafana")
def under(target_dir):
    host = graf.get(target_dir)
    if host is None:
        fail(f"service grafana does not mount {target_dir}")
    return [parse(os.path.join(host, f)) for f in sorted(os.listdir(host)) if f.endswith((".yml", ".yaml", ".json"))]
uids = set()
for ds_file in under("/etc/grafana/provisioning/datasources"):
    for ds in ds_file["datasources"]:
        if ds["type"] == "prometheus" and not ds["url"].startswith("http://prometheus:9090"):
            fail(f"grafana datasource {ds['name']} points at {ds['url']}, not the prometheus service")
        uids.add(ds.get("uid"))
for prov in under("/etc/grafana/provisioning/dashboards"):
    for p in prov["providers"]:
        path = p["options"]["path"]
        for d in under(path):
            used = {t["datasource"]["uid"] for panel in d["panels"] for t in panel.get("targets", [])}
            if not used <= uids:
                fail(f"dashboard {d['uid']} uses datasource uids {sorted(used - uids)}, not provisioned ({sorted(uids)})")
            print(f"check-compose: service grafana: dashboard {d['uid']} ({len(d['panels'])} panels) provisioned from {path}")
PY

# promtool from Debian's prometheus package, unpacked only, not installed (no daemon; about 4 s:
# a 19 MB download), unless one is on the PATH
promtool="$(command -v promtool || true)"
if [[ -z "$promtool" ]]; then
  (cd "$dist" && { apt-get download prometheus >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get download prometheus >/dev/null; }; } \
     && dpkg-deb -x prometheus_*.deb prometheus-pkg)
  promtool="$dist/prometheus-pkg/usr/bin/promtool"
fi
"$promtool" check rules deploy/prometheus/dimstream-alerts.yml
# the config as the container reads it, with the rule file at its mounted path
mkdir -p "$dist/prom/rules"
cp deploy/prometheus/dimstream-alerts.yml "$dist/prom/rules/"
sed "s#/etc/prometheus/rules/#$dist/prom/rules/#" deploy/prometheus/prometheus.yml > "$dist/prom/prometheus.yml"
"$promtool" check config "$dist/prom/prometheus.yml"
echo "check-compose: promtool check rules, check config: ok"
