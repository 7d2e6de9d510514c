package io.dimstream.cli;

import io.dimstream.config.ConfigException;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.schema.Migrations;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream replay}: queues a replay job in PostgreSQL ({@code dimstream.replay_jobs}); a
 * running {@code dimstream run} that serves the entity executes it. With {@code --wait}, polls the
 * job until it ends, printing its progress; exit 0 succeeded, 1 failed, 3 cancelled, 2 when the
 * job could not be submitted.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Replays a topic range into an entity's table (a backfill),",
                "or rebuilds the table in a shadow table swapped in when caught up.",
                "The job is a row in PostgreSQL: a running 'dimstream run' serving the entity",
                "executes it and resumes it after a restart; the admin UI shows its progress.",
                "Exit 0 queued (with --wait: succeeded), 1 failed, 3 cancelled, 2 not queued."})
final class ReplayCommand implements Callable<Integer> {

    static final int CANCELLED = 3;

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the dimstream YAML config")
    Path config;

    @Option(names = "--entity", required = true, paramLabel = "NAME", description = "the entity whose table the replay writes")
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

    @Option(names = "--wait", description = "poll until the job ends, printing progress; the exit code tells the outcome")
    boolean await;

    @Option(names = "--user", paramLabel = "NAME", description = "who asks, for the audit log; default: cli:<OS user>")
    String user;

    @Option(names = "--poll", defaultValue = "PT1S", hidden = true)
    Duration poll;

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            DimstreamConfig cfg = CommandSupport.loadConfig(config);
            EntitySpec e = CommandSupport.entity(cfg, entity);
            String readTopic;
            try {
                readTopic = topic != null ? topic : cfg.entity(entity).topic();
                if (cfg.entity(entity).snapshot()) {
                    throw new CliFailure(CliFailure.USAGE, "--entity: " + entity + " is a snapshot feed (mode: snapshot); replaying "
                            + "snapshot feeds is not supported yet (the deletions by absence would not be applied)", null);
                }
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
            String who = user != null ? user : "cli:" + System.getProperty("user.name", "unknown");
            PrintWriter out = spec.commandLine().getOut();
            try (Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
                Migrations.migrate(db.dataSource());
                ReplayJobs jobs = new ReplayJobs(db.dataSource());
                long id = jobs.submit(e.name(), readTopic, source, into, only, who);
                out.printf("replay job %d queued: %s from %s into the %s table of %s%s (by %s)%n", id, readTopic, source,
                        into.sql(), e.name(), only == null ? "" : ", " + only + " only", who);
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
            if (j.state().finished()) {
                if (j.error() != null) {
                    out.println("error: " + j.error());
                }
                if (j.detail() != null) {
                    out.println(j.detail());
                }
                out.flush();
                return j.state() == JobState.SUCCEEDED ? 0 : j.state() == JobState.CANCELLED ? CANCELLED : CliFailure.FAILED;
            }
            if (!hinted && j.state() == JobState.QUEUED && System.nanoTime() - queuedSince > Duration.ofSeconds(30).toNanos()) {
                out.println("still queued after 30 s: is a 'dimstream run' serving entity " + j.entity() + " running?");
                out.flush();
                hinted = true;
            }
            Thread.sleep(poll.toMillis());
        }
    }

    static String progress(ReplayJob j) {
        String total = j.eventsTotal() == null ? "?" : String.format(Locale.ROOT, "%,d", j.eventsTotal());
        return String.format(Locale.ROOT, "job %d %s: %,d/%s events (%d%%), %,d rows changed, %,d rejected", j.id(),
                j.state(), j.eventsRead(), total, j.percent(), j.rowsChanged(), j.eventsRejected());
    }
}
