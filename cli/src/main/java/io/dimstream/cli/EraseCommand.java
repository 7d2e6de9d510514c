package io.dimstream.cli;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.erase.Erasure;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.schema.Migrations;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream erase}: removes keys (a person's records) from everything dimstream keeps in
 * PostgreSQL, in one transaction ({@link Erasure}), audited; by default keeps a tombstone (a hash of
 * each key) so the writer drops their events from then on. Prints the rows removed per place.
 * Exit 0 done (also when nothing of the keys was found), 2 refused (unknown entity, a bad key).
 */
@Command(name = "erase", mixinStandardHelpOptions = true,
        description = {"Erases keys of an entity from every place dimstream keeps them in PostgreSQL, in one transaction: all versions, "
                        + "the event memory, the transaction-time history, shadow and retired tables, quarantine, sink rejects, the DLQ mirror, "
                        + "and the key lists, audit entries and integrity findings that name them.",
                "The audit log gets one entry (who, when, the entity, rows removed per place), never a key or a value.",
                "By default a tombstone (a hash of the key, no text) makes every later event of the key be dropped, so a replay of the "
                        + "topic does not bring it back; Kafka itself keeps its copies until compaction or retention removes them.",
                "Exit 0 erased (also when no row of a key was found: 0 rows), 2 refused (nothing erased)."})
final class EraseCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the dimstream YAML config")
    Path config;

    @Option(names = "--entity", required = true, paramLabel = "NAME", description = "the entity whose keys are erased")
    String entity;

    @Option(names = "--key", paramLabel = "KEY",
            description = "a key to erase (repeatable): its value for a one-column key (taken whole, commas and all), or a JSON object "
                    + "naming every key column, e.g. '{\"region\": \"eu\", \"id\": 7}'")
    List<String> keys = new ArrayList<>();

    @Option(names = "--keys-file", paramLabel = "FILE", description = "a file of keys to erase, one per line as --key reads it; blank lines are skipped")
    Path keysFile;

    @Option(names = "--no-tombstone", description = "keep no tombstone: a later replay of the topic, a re-delivered record or a load "
            + "of an old file brings the keys back. Default: a tombstone is kept")
    boolean noTombstone;

    @Option(names = "--user", paramLabel = "NAME", description = "who erases, for the audit log; default: cli:<OS user>")
    String user;

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            if (keys.isEmpty() && keysFile == null) {
                throw new CliFailure(CliFailure.USAGE, "--key or --keys-file: name the keys to erase", null);
            }
            DimstreamConfig cfg = CommandSupport.loadResolvedConfig(config, spec.commandLine().getErr());
            EntitySpec configured = CommandSupport.entity(cfg, entity);
            String who = user != null ? user : "cli:" + System.getProperty("user.name", "unknown");
            PrintWriter out = spec.commandLine().getOut();
            try (Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
                Migrations.migrate(db.dataSource());
                EntitySpec shape = EntityShapes.of(db.dataSource(), configured).current(configured.name());
                Erasure.Report r = new Erasure(db.dataSource()).erase(shape, parsedKeys(shape), !noTombstone, who);
                print(out, r, who);
                out.flush();
                return 0;
            } catch (SQLException ex) {
                throw new CliFailure(CliFailure.FAILED, "nothing of entity " + entity + " was erased: " + ex.getMessage()
                        + " (SQL state " + ex.getSQLState() + ")", ex);
            }
        });
    }

    /** The keys of {@code --key} and {@code --keys-file}, read against the entity's key columns. */
    private List<List<String>> parsedKeys(EntitySpec shape) {
        List<List<String>> out = new ArrayList<>();
        try {
            for (String k : keys) {
                out.add(ReplayKeys.parseKey("--key", k, shape));
            }
        } catch (IllegalArgumentException ex) {
            throw new CliFailure(CliFailure.USAGE, ex.getMessage() + "; nothing was erased", ex);
        }
        if (keysFile == null) {
            return out;
        }
        try (BufferedReader in = CommandSupport.openInput(keysFile)) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                if (!line.isBlank()) {
                    out.add(ReplayKeys.parseKey("--keys-file " + keysFile + " line " + n, line, shape));
                }
            }
        } catch (IllegalArgumentException ex) {
            throw new CliFailure(CliFailure.USAGE, ex.getMessage() + "; nothing was erased", ex);
        } catch (IOException ex) {
            throw new CliFailure(CliFailure.USAGE, "--keys-file: cannot read " + keysFile + ": " + ex.getMessage(), ex);
        }
        if (out.isEmpty()) {
            throw new CliFailure(CliFailure.USAGE, "--keys-file: " + keysFile + " names no key", null);
        }
        return out;
    }

    /** The report: what was removed where, the tombstones, and what is left in Kafka. */
    static void print(PrintWriter out, Erasure.Report r, String who) {
        out.printf(Locale.ROOT, "erased %d key%s of %s in one transaction (by %s): %,d rows removed or rewritten%n", r.keys(), r.keys() == 1 ? "" : "s",
                r.entity(), who, r.total());
        for (Map.Entry<String, Long> e : r.removed().entrySet()) {
            out.printf(Locale.ROOT, "  %-26s %,d%n", e.getKey(), e.getValue());
        }
        if (r.tombstone()) {
            out.printf(Locale.ROOT, "tombstones: %d added (%d kept already); later events of these keys are dropped, counted in "
                    + "dimstream_events_erased_total%n", r.tombstones(), r.keys() - r.tombstones());
        } else {
            out.println("no tombstone (--no-tombstone): a replay of the topic or a re-delivered record brings these keys back");
        }
        out.println("Kafka keeps its copies (the topic, its DLQ topic, Kafka Streams changelogs) until compaction or retention "
                + "removes them: docs/operations.md, \"Erasing a person\"");
    }
}
