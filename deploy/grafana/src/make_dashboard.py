#!/usr/bin/env python3
"""Writes deploy/grafana/dashboards/dimstream.json (the provisioned Grafana dashboard).

The JSON is the file Grafana loads and the one checked in; this script is how it is made, so a
panel is a line here instead of forty lines of JSON. Run: python3 deploy/grafana/src/make_dashboard.py
"""
import json
import pathlib

DS = {"type": "prometheus", "uid": "dimstream-prometheus"}
SEL = 'instance=~"$instance"'
ENT = 'entity=~"$entity"'

panels = []
y = 0


def row(title):
    global y
    panels.append({"type": "row", "title": title, "collapsed": False, "id": len(panels) + 1,
                   "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
    y += 1


def panel(title, description, targets, unit="short", kind="timeseries", w=12, h=8, x=0, stack=False, thresholds=None):
    global y
    p = {
        "id": len(panels) + 1, "type": kind, "title": title, "description": description, "datasource": DS,
        "gridPos": {"h": h, "w": w, "x": x, "y": y},
        "targets": [{"datasource": DS, "refId": chr(ord("A") + i), "expr": e, "legendFormat": l}
                    for i, (e, l) in enumerate(targets)],
        "fieldConfig": {"defaults": {"unit": "none" if unit == "bool_up" else unit}, "overrides": []},
        "options": {},
    }
    if kind == "timeseries":
        p["fieldConfig"]["defaults"]["custom"] = {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10,
                                                  "stacking": {"mode": "normal" if stack else "none", "group": "A"}}
        p["options"] = {"legend": {"displayMode": "table", "placement": "bottom", "calcs": ["mean", "max", "lastNotNull"]},
                        "tooltip": {"mode": "multi", "sort": "desc"}}
    if kind == "stat":
        p["options"] = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                        "colorMode": "background", "graphMode": "none", "textMode": "value_and_name"}
    if thresholds:
        p["fieldConfig"]["defaults"]["thresholds"] = {"mode": "absolute", "steps": thresholds}
    if kind == "stat" and unit == "bool_up":
        p["fieldConfig"]["defaults"]["mappings"] = [
            {"type": "value", "options": {"0": {"text": "DOWN", "color": "red"}, "1": {"text": "UP", "color": "green"}}}]
    panels.append(p)
    if x + w >= 24:
        y += h


RED_GREEN = [{"color": "red", "value": None}, {"color": "green", "value": 1}]
GREEN_RED = [{"color": "green", "value": None}, {"color": "red", "value": 1}]

row("Health")
panel("Ready", "1 while /health/ready answers 200: events flow (alert DimstreamNotReady)",
      [(f"dimstream_health_ready{{{SEL}}}", "{{instance}}")], unit="bool_up", kind="stat", w=4, h=4, thresholds=RED_GREEN)
panel("Live", "1 while /health/live answers 200 (alert DimstreamNotLive)",
      [(f"dimstream_health_live{{{SEL}}}", "{{instance}}")], unit="bool_up", kind="stat", w=4, h=4, x=4, thresholds=RED_GREEN)
panel("Sink running", "1 while the sink's thread runs (alert DimstreamSinkNotRunning)",
      [(f"dimstream_sink_running{{{SEL}}}", "{{instance}}")], unit="bool_up", kind="stat", w=4, h=4, x=8, thresholds=RED_GREEN)
panel("Stuck partitions", "sink partitions with records left and no progress for sink.stuck-after (alert DimstreamSinkPartitionStuck)",
      [(f"dimstream_sink_partitions_stuck{{{SEL}}}", "{{instance}}")], kind="stat", w=4, h=4, x=12, thresholds=GREEN_RED)
panel("Stream thread deaths (1h)", "Kafka Streams threads that died in the last hour, by Kafka Streams client (an entity's own, or a shared streams-client) and cause",
      [(f"sum by (client, cause) (increase(dimstream_stream_thread_failures_total{{{SEL}}}[1h]))", "{{client}}: {{cause}}")],
      kind="stat", w=4, h=4, x=16, thresholds=GREEN_RED)
panel("Replay jobs failed (24h)", "replay jobs that ended FAILED in the last day (alert DimstreamReplayJobFailed)",
      [(f"sum(increase(dimstream_replay_jobs_total{{{SEL}, outcome=\"failed\"}}[1d]))", "failed")],
      kind="stat", w=4, h=4, x=20, thresholds=GREEN_RED)

row("Events")
panel("Events in, by class", "source records the topology classified, per second: new, changed, deleted, unchanged, late, "
      "duplicate, dlq, skipped, control, truncate, message (dimstream_events_total)",
      [(f"sum by (class) (rate(dimstream_events_total{{{SEL}, {ENT}}}[$__rate_interval]))", "{{class}}")],
      unit="ops", stack=True)
panel("Events applied by the sink, by class", "events the writer applied, per second, by how it classified them "
      "(dimstream_sink_events_total)",
      [(f"sum by (class) (rate(dimstream_sink_events_total{{{SEL}, {ENT}}}[$__rate_interval]))", "{{class}}")],
      unit="ops", x=12, stack=True)
panel("Version rows written", "version rows inserted, updated or deleted per second, by entity",
      [(f"sum by (entity) (rate(dimstream_rows_changed_total{{{SEL}, {ENT}}}[$__rate_interval]))", "{{entity}}")], unit="ops")
panel("DLQ, quarantine and rejects inflow", "records dead-lettered (alert DimstreamDeadLetters), events quarantined beyond "
      "the lateness horizon (DimstreamQuarantine), records the sink rejected (DimstreamSinkRejects), per entity, per minute",
      [(f"sum by (entity) (rate(dimstream_events_total{{{SEL}, {ENT}, class=\"dlq\"}}[$__rate_interval])) * 60", "dlq {{entity}}"),
       (f"sum by (entity) (rate(dimstream_quarantine_total{{{SEL}, {ENT}}}[$__rate_interval])) * 60", "quarantine {{entity}}"),
       (f"sum by (entity) (rate(dimstream_sink_rejects_total{{{SEL}, {ENT}}}[$__rate_interval])) * 60", "rejects {{entity}}")],
      unit="short", x=12)

row("Sink")
panel("Sink lag", "changes-topic records not yet applied to PostgreSQL, by topic (alerts DimstreamSinkLagHigh, DimstreamSinkLagGrowing)",
      [(f"sum by (topic) (dimstream_sink_lag_records{{{SEL}}})", "{{topic}}")], unit="short")
panel("Batch latency", "mean and max time of one sink batch (apply, offsets, commit), by entity",
      [(f"sum by (entity) (rate(dimstream_sink_apply_seconds_sum{{{SEL}, {ENT}}}[$__rate_interval])) "
        f"/ sum by (entity) (rate(dimstream_sink_apply_seconds_count{{{SEL}, {ENT}}}[$__rate_interval]))", "mean {{entity}}"),
       (f"max by (entity) (dimstream_sink_apply_seconds_max{{{SEL}, {ENT}}})", "max {{entity}}")], unit="s", x=12)
panel("Batch size", "change records per committed batch: mean and max, by entity",
      [(f"sum by (entity) (rate(dimstream_sink_batch_size_records_sum{{{SEL}, {ENT}}}[$__rate_interval])) "
        f"/ sum by (entity) (rate(dimstream_sink_batch_size_records_count{{{SEL}, {ENT}}}[$__rate_interval]))", "mean {{entity}}"),
       (f"max by (entity) (dimstream_sink_batch_size_records_max{{{SEL}, {ENT}}})", "max {{entity}}")], unit="short")
panel("Partition failures, stops and gaps", "failed batch transactions by kind (DimstreamSinkPartitionFailures); partitions "
      "stopped and offsets skipped because the stored offset left the log (DimstreamSinkOffsetsSkipped)",
      [(f"sum by (entity, kind) (increase(dimstream_sink_partition_failures_total{{{SEL}, {ENT}}}[$__rate_interval]))", "failures {{entity}} {{kind}}"),
       (f"sum by (entity) (increase(dimstream_sink_partitions_stopped_total{{{SEL}, {ENT}}}[$__rate_interval]))", "stopped {{entity}}"),
       (f"sum by (entity) (increase(dimstream_sink_gap_offsets_total{{{SEL}, {ENT}}}[$__rate_interval]))", "gap offsets {{entity}}")],
      unit="short", x=12)

row("Catch-up")
panel("Consumer lag (Kafka Streams and sink)", "records-lag-max of each Kafka consumer of dimstream: the Kafka Streams threads "
      "on the source topics and the sink on the changes topics (alert DimstreamStreamsLagHigh). Both near 0: caught up",
      [(f"max by (client_id) (kafka_consumer_fetch_manager_records_lag_max{{{SEL}}})", "{{client_id}}")], unit="short")
panel("Kafka Streams: process rate and alive threads", "records processed per second by the stream threads, and how many threads are alive",
      [(f"sum(kafka_stream_thread_process_rate{{{SEL}}})", "processed/s"),
       (f"sum(kafka_stream_alive_stream_threads{{{SEL}}})", "alive threads")], unit="short", x=12)

row("Replay")
panel("Replay jobs finished", "replay jobs this instance finished, by entity and outcome (succeeded, failed, cancelled)",
      [(f"sum by (entity, outcome) (increase(dimstream_replay_jobs_total{{{SEL}, {ENT}}}[$__rate_interval]))", "{{outcome}} {{entity}}")],
      unit="short")
panel("Replay jobs queued and running", "jobs waiting and running per entity, from dimstream.replay_jobs (every instance reports "
      "the same table: max, not sum)",
      [(f"max by (entity, state) (dimstream_replay_jobs_current{{{SEL}, {ENT}, state=~\"queued|running\"}})", "{{state}} {{entity}}")],
      unit="short", x=12)
panel("Running replays: events read and lag", "over each entity's running replay jobs: events read so far, and the events of "
      "their ranges not read yet (lag = events_total - events_read)",
      [(f"max by (entity) (dimstream_replay_running_events_read{{{SEL}, {ENT}}})", "read {{entity}}"),
       (f"max by (entity) (dimstream_replay_running_lag{{{SEL}, {ENT}}})", "lag {{entity}}")], unit="short")
panel("Running replays: rows changed", "version rows inserted, updated or deleted so far by each entity's running replay jobs",
      [(f"max by (entity) (dimstream_replay_running_rows_changed{{{SEL}, {ENT}}})", "{{entity}}")], unit="short", x=12)

row("JVM")
panel("Heap", "heap used and its maximum",
      [(f"sum by (instance) (jvm_memory_used_bytes{{{SEL}, area=\"heap\"}})", "used {{instance}}"),
       (f"sum by (instance) (jvm_memory_max_bytes{{{SEL}, area=\"heap\"}} > 0)", "max {{instance}}")], unit="bytes", w=8)
panel("GC pauses", "time spent in GC pauses per second", [
      (f"sum by (instance) (rate(jvm_gc_pause_seconds_sum{{{SEL}}}[$__rate_interval]))", "{{instance}}")], unit="s", w=8, x=8)
panel("CPU and threads", "process CPU usage (0-1) and live threads", [
      (f"process_cpu_usage{{{SEL}}}", "cpu {{instance}}"),
      (f"jvm_threads_live_threads{{{SEL}}}", "threads {{instance}}")], unit="short", w=8, x=16)


def variable(name, query, label):
    return {"name": name, "label": label, "type": "query", "datasource": DS, "refresh": 2, "includeAll": True,
            "multi": True, "allValue": ".*", "current": {"selected": True, "text": "All", "value": "$__all"},
            "query": {"query": query, "refId": f"{name}-query"}, "definition": query, "sort": 1}


dashboard = {
    "uid": "dimstream-overview",
    "title": "dimstream",
    "description": "dimstream's Prometheus metrics: health, events by class, DLQ/quarantine/rejects, sink lag and batches, "
                   "catch-up, replay jobs, JVM. Alert rules: deploy/prometheus/dimstream-alerts.yml",
    "tags": ["dimstream"],
    "timezone": "utc",
    "schemaVersion": 39,
    "version": 1,
    "editable": False,
    "refresh": "30s",
    "time": {"from": "now-6h", "to": "now"},
    "templating": {"list": [
        variable("instance", "label_values(dimstream_health_ready, instance)", "instance"),
        variable("entity", "label_values(dimstream_events_total, entity)", "entity"),
    ]},
    "annotations": {"list": []},
    "links": [],
    "panels": panels,
}

out = pathlib.Path(__file__).resolve().parent.parent / "dashboards" / "dimstream.json"
out.write_text(json.dumps(dashboard, indent=2) + "\n")
print(f"wrote {out}: {sum(1 for p in panels if p['type'] != 'row')} panels")
