package io.dimstream.cli;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.kafka.KafkaWait;
import io.dimstream.config.ConfigException;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.KafkaConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.jobs.ShadowPreviews;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.read.ShadowDiff;
import io.dimstream.db.read.VersionRow;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.schema.Migrations;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream replay}: queues a replay job in PostgreSQL ({@code dimstream.replay_jobs}); a
 * running {@code dimstream run} that serves the entity executes it. With {@code --wait}, polls the
 * job until it ends, printing its progress; exit 0 succeeded (or READY), 1 failed, 3 cancelled, 2 when the
 * job could not be submitted.
 *
 * <p>A previewed rebuild ({@link ShadowPreviews}): {@code --target shadow --no-swap} stops the job
 * READY at its end offsets; {@code --diff JOB} prints what its swap would change (counts, then the
 * first {@code --limit} keys with their versions added and removed), {@code --swap JOB} swaps it in,
 * {@code --discard JOB} drops the shadow; swap and discard are audited with {@code --user}.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Replays a topic range into an entity's table (a backfill), or rebuilds the table in a shadow table "
                        + "swapped in when caught up.",
                "The job is a row in PostgreSQL: a running 'dimstream run' serving the entity executes it and resumes it "
                        + "after a restart; the admin UI shows its progress.",
                "A shadow rebuild with --no-swap stops READY before its swap: --diff JOB shows what the swap would change, "
                        + "--swap JOB swaps it in, --discard JOB drops the shadow.",
                "Exit 0 queued (with --wait: succeeded or READY), 1 failed, 3 cancelled, 2 not queued or refused.",
                "Exit 69 when Kafka did not answer within --kafka-wait (nothing queued)."})
final class ReplayCommand implements Callable<Integer> {

    static final int CANCELLED = 3;

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the dimstream YAML config")
    Path config;

    @Option(names = "--entity", paramLabel = "NAME", description = "the entity whose table the replay writes (required to submit a job)")
    String entity;

    @Option(names = "--topic", paramLabel = "TOPIC", description = "the topic to read, in the entity's format; default: the entity's topic")
    String topic;

    @Option(names = "--from", defaultValue = "earliest", paramLabel = "FROM",
            description = "earliest | an ISO-8601 instant (Kafka record timestamp, e.g. 2025-08-01T00:00:00Z) | "
                    + "partition:offset,... (only those partitions); the end is always the end offsets when the job starts. "
                    + "Default: ${DEFAULT-VALUE}")
    String from;

    @Option(names = "--target", defaultValue = "live", paramLabel = "live|shadow",
            description = "live: into the table itself (duplicates are no-ops, old events land as late events); shadow: into a "
                    + "fresh table swapped in atomically when caught up. Default: ${DEFAULT-VALUE}")
    String target;

    @Option(names = "--keys", paramLabel = "KEYS",
            description = "repair only these keys of the live table: their rows are removed and rebuilt from the range "
                    + "(records of other keys are read and skipped). A one-column key: K1,K2; any key: JSON objects naming "
                    + "the key columns, e.g. '{\"region\": \"eu\", \"id\": 7},{\"region\": \"us\", \"id\": 1}'")
    String keys;

    @Option(names = "--key-prefix", paramLabel = "PREFIX",
            description = "repair only the keys whose first key column (text) starts with PREFIX, like --keys")
    String keyPrefix;

    @Option(names = "--no-swap", description = "with --target shadow: stop the job READY at its end offsets instead of swapping the "
            + "shadow in; then --diff, --swap or --discard it")
    boolean noSwap;

    @Option(names = "--diff", paramLabel = "JOB", description = "print what swapping in the READY job's shadow would change (as the swap "
            + "would do it now, with the live events the shadow lacks merged): keys added, removed, changed, and per key the versions "
            + "added and removed")
    Long diffJob;

    @Option(names = "--limit", defaultValue = "20", paramLabel = "N", description = "with --diff: how many keys to list. Default: ${DEFAULT-VALUE}")
    int limit;

    @Option(names = "--swap", paramLabel = "JOB", description = "swap the READY job's shadow table in (audited), as the job would have "
            + "at its end without --no-swap")
    Long swapJob;

    @Option(names = "--discard", paramLabel = "JOB", description = "drop the READY job's shadow table and end the job CANCELLED "
            + "(audited); the live table is untouched")
    Long discardJob;

    @Option(names = "--wait", description = "poll until the job ends, printing progress; the exit code tells the outcome")
    boolean await;

    @Option(names = "--user", paramLabel = "NAME", description = "who asks, for the audit log; default: cli:<OS user>")
    String user;

    @Option(names = KafkaCheck.OPTION, paramLabel = "DURATION|forever", defaultValue = "PT30S",
            converter = KafkaCheck.WaitConverter.class,
            description = "Before a job is queued, the config's Kafka (the job reads its topic there) must answer: the first "
                    + "failure is printed with what was tried and what to check, then Kafka is tried again every 5 s with a line "
                    + "each, until it answers or DURATION (ISO-8601) has passed; then the command exits with status "
                    + CliFailure.KAFKA_UNREACHABLE + ", nothing queued. PT0S exits after the first try, forever never gives up. "
                    + "Not checked with kafka.bootstrap-servers: embedded. Default: ${DEFAULT-VALUE}.")
    KafkaWait kafkaWait;

    @Option(names = "--poll", defaultValue = "PT1S", hidden = true)
    Duration poll;

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            int actions = (diffJob != null ? 1 : 0) + (swapJob != null ? 1 : 0) + (discardJob != null ? 1 : 0);
            if (actions > 1) {
                throw new CliFailure(CliFailure.USAGE, "--diff, --swap and --discard: give one of them", null);
            }
            if (actions == 1) {
                return onReadyJob();
            }
            if (entity == null) {
                throw new CliFailure(CliFailure.USAGE, "--entity: the entity to replay is required (or --diff, --swap or --discard JOB)", null);
            }
            DimstreamConfig cfg = CommandSupport.loadResolvedConfig(config, spec.commandLine().getErr());
            EntitySpec e = CommandSupport.entity(cfg, entity);
            String readTopic;
            try {
                readTopic = topic != null ? topic : cfg.entity(entity).topic();
            } catch (ConfigException ex) {
                throw new CliFailure(CliFailure.USAGE, "--entity: " + ex.getMessage(), ex);
            }
            ReplaySource source;
            ReplayTarget into;
            try {
                source = ReplaySource.parse(from);
                into = ReplayTarget.parse(target);
            } catch (IllegalArgumentException ex) {
                throw new CliFailure(CliFailure.USAGE, "--" + ex.getMessage(), ex);
            }
            ReplayKeys only = null;
            try {
                if (keys != null && keyPrefix != null) {
                    throw new IllegalArgumentException("--keys and --key-prefix: give one of them");
                }
                if (keys != null) {
                    only = ReplayKeys.parseKeys("--keys", keys, e);
                } else if (keyPrefix != null) {
                    only = ReplayKeys.parsePrefix("--key-prefix", keyPrefix, e);
                }
                if (only != null && into != ReplayTarget.LIVE) {
                    throw new IllegalArgumentException((keys != null ? "--keys" : "--key-prefix") + ": a repair of some keys writes "
                            + "the live table (--target live); a shadow of some keys would replace the whole table");
                }
            } catch (IllegalArgumentException ex) {
                throw new CliFailure(CliFailure.USAGE, ex.getMessage(), ex);
            }
            if (noSwap && into != ReplayTarget.SHADOW) {
                throw new CliFailure(CliFailure.USAGE, "--no-swap: only with --target shadow (a live replay has no swap)", null);
            }
            awaitKafka(cfg);
            String who = who();
            PrintWriter out = spec.commandLine().getOut();
            try (Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
                Migrations.migrate(db.dataSource());
                ReplayJobs jobs = new ReplayJobs(db.dataSource());
                long id = only != null ? jobs.submit(e.name(), readTopic, source, into, only, who)
                        : jobs.submit(e.name(), readTopic, source, into, noSwap, who);
                out.printf("replay job %d queued: %s from %s into the %s table of %s%s (by %s)%s%n", id, readTopic, source,
                        into.sql(), e.name(), only == null ? "" : ", " + only + " only", who, noSwap ? "; it stops READY before the swap" : "");
                out.flush();
                if (!await) {
                    return 0;
                }
                return waitFor(jobs, id, out);
            } catch (SQLException ex) {
                throw new CliFailure(CliFailure.USAGE, "cannot submit the replay of entity " + e.name() + ": " + ex.getMessage()
                        + " (SQL state " + ex.getSQLState() + ")", ex);
            }
        });
    }

    /**
     * Waits for the config's Kafka as {@code --kafka-wait} says: the job reads its topic there. Not
     * for an embedded broker (it runs inside the 'dimstream run' that executes the job) or a config
     * without one.
     */
    private void awaitKafka(DimstreamConfig cfg) {
        KafkaConfig kafka = cfg.kafka().orElse(null);
        if (kafka == null || kafka.embedded()) {
            return;
        }
        List<String> problems = KafkaClients.problems(kafka.client());
        if (!problems.isEmpty()) {
            throw new CliFailure(CliFailure.USAGE, String.join("; ", problems), null);
        }
        KafkaCheck.await(spec, KafkaClients.of(kafka.bootstrapServers(), kafka), "kafka.bootstrap-servers", kafkaWait,
                "the job was not queued");
    }

    private int waitFor(ReplayJobs jobs, long id, PrintWriter out) throws SQLException, InterruptedException {
        String last = null;
        long queuedSince = System.nanoTime();
        boolean hinted = false;
        while (true) {
            ReplayJob j = jobs.find(id).orElseThrow(() -> new CliFailure(CliFailure.FAILED, "replay job " + id + " vanished", null));
            String line = progress(j);
            if (!line.equals(last)) {
                out.println(line);
                out.flush();
                last = line;
            }
            if (j.state().settled()) {
                if (j.error() != null) {
                    out.println("error: " + j.error());
                }
                if (j.detail() != null) {
                    out.println(j.detail());
                }
                if (j.state() == JobState.READY) {
                    out.printf("next: dimstream replay --config %s --diff %d (what the swap would change), then --swap %d or --discard %d%n",
                            config, id, id, id);
                }
                out.flush();
                return j.state() == JobState.SUCCEEDED || j.state() == JobState.READY ? 0
                        : j.state() == JobState.CANCELLED ? CANCELLED : CliFailure.FAILED;
            }
            if (!hinted && j.state() == JobState.QUEUED && System.nanoTime() - queuedSince > Duration.ofSeconds(30).toNanos()) {
                out.println("still queued after 30 s: is a 'dimstream run' serving entity " + j.entity() + " running?");
                out.flush();
                hinted = true;
            }
            Thread.sleep(poll.toMillis());
        }
    }

    private String who() {
        return user != null ? user : "cli:" + System.getProperty("user.name", "unknown");
    }

    /** {@code --diff}, {@code --swap} or {@code --discard} of a READY job. */
    private int onReadyJob() {
        long id = diffJob != null ? diffJob : swapJob != null ? swapJob : discardJob;
        if (limit < 0 || limit > ShadowDiff.MAX_LIMIT) {
            throw new CliFailure(CliFailure.USAGE, "--limit: must be between 0 and " + ShadowDiff.MAX_LIMIT + ", got " + limit, null);
        }
        DimstreamConfig cfg = CommandSupport.loadResolvedConfig(config, spec.commandLine().getErr());
        PrintWriter out = spec.commandLine().getOut();
        try (Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
            DataSource ds = db.dataSource();
            Migrations.migrate(ds);
            ReplayJob job = new ReplayJobs(ds).find(id).orElseThrow(() -> new CliFailure(CliFailure.USAGE, "no replay job " + id, null));
            if (entity != null && !entity.equals(job.entity())) {
                throw new CliFailure(CliFailure.USAGE, "--entity: replay job " + id + " rebuilds " + job.entity() + ", not " + entity, null);
            }
            EntitySpec live = EntityShapes.of(ds, CommandSupport.entity(cfg, job.entity())).current(job.entity());
            ShadowPreviews previews = new ShadowPreviews(ds);
            try {
                if (diffJob != null) {
                    printPreview(out, previews.preview(id, live, limit));
                } else if (swapJob != null) {
                    ReplayJob done = previews.swap(id, live, who());
                    out.printf("replay job %d %s: %s%n", id, done.state(), done.detail());
                } else {
                    ReplayJob done = previews.discard(id, live, who());
                    out.printf("replay job %d %s: %s%n", id, done.state(), done.detail());
                }
            } catch (ShadowPreviews.NotReady ex) {
                throw new CliFailure(CliFailure.USAGE, ex.getMessage(), ex);
            } catch (ShadowTables.SwapRefused ex) {
                throw new CliFailure(CliFailure.FAILED, "replay job " + id + " was not swapped in (nothing changed, it is still READY): "
                        + ex.getMessage(), ex);
            }
            out.flush();
            return 0;
        } catch (SQLException ex) {
            throw new CliFailure(CliFailure.FAILED, "replay job " + id + ": " + ex.getMessage() + " (SQL state " + ex.getSQLState() + ")", ex);
        }
    }

    /** The preview: counts, then per key its kind and its versions added (+) and removed (-). */
    static void printPreview(PrintWriter out, ShadowPreviews.Preview p) {
        ShadowDiff d = p.diff();
        out.printf("replay job %d READY: swapping %s in for %s would change%n", p.job().id(), p.shadowTable(), p.liveTable());
        out.printf("  keys: %,d added, %,d removed, %,d changed; versions: %,d added, %,d removed%n", d.keysAdded(), d.keysRemoved(),
                d.keysChanged(), d.versionsAdded(), d.versionsRemoved());
        out.printf("  computed as the swap would do it now: %,d events of the live memory the shadow lacks (written after the job's "
                + "end offsets, loaded, applied from quarantine) merged into it first%n", p.mergedEvents());
        if (d.changesNothing()) {
            out.println("  no key differs: the swap would change nothing");
            return;
        }
        long all = d.keysAdded() + d.keysRemoved() + d.keysChanged();
        out.printf("%s:%n", d.truncated() ? "first " + d.keys().size() + " of " + all + " keys (--limit)" : "keys");
        for (ShadowDiff.KeyDiff k : d.keys()) {
            out.printf("  %s %s%n", k.kind().label(), keyText(k.key()));
            ShadowDiff.KeyDiff.Lines lines = k.lines(ReplayCommand::versionText); // alike lines get their record_hash
            lines.added().forEach(v -> out.println("    + " + v));
            lines.removed().forEach(v -> out.println("    - " + v));
        }
    }

    private static String keyText(Map<String, Object> key) {
        StringBuilder b = new StringBuilder();
        key.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append('=').append(v));
        return b.toString();
    }

    static String versionText(VersionRow v) {
        StringBuilder b = new StringBuilder();
        b.append('[').append(v.validFrom()).append(", ").append(v.validTo() == null ? "open" : v.validTo()).append(')');
        if (v.deleted()) {
            b.append(" deleted");
        } else {
            List<String> attrs = v.attributes().entrySet().stream().map(e -> e.getKey() + "=" + (e.getValue() instanceof byte[] bytes
                    ? "\\x" + java.util.HexFormat.of().formatHex(bytes) : e.getValue())).toList();
            b.append(' ').append(String.join(", ", attrs));
        }
        return b.toString();
    }

    static String progress(ReplayJob j) {
        String total = j.eventsTotal() == null ? "?" : String.format(Locale.ROOT, "%,d", j.eventsTotal());
        return String.format(Locale.ROOT, "job %d %s: %,d/%s events (%d%%), %,d rows changed, %,d rejected", j.id(),
                j.state(), j.eventsRead(), total, j.percent(), j.rowsChanged(), j.eventsRejected());
    }
}
