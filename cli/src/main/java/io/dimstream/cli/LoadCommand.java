package io.dimstream.cli;

import io.dimstream.app.load.EventFileLoader;
import io.dimstream.app.load.LoadException;
import io.dimstream.app.load.LoadReport;
import io.dimstream.app.load.SliceFileNames;
import io.dimstream.app.load.SliceLoader;
import io.dimstream.app.load.TabularSource;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.source.SourceRows;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream load}: applies native JSON events, the rows of a CSV or Parquet file, or the
 * rows of a query through the SCD2 writer; with {@code --slice-at} (or a directory and
 * {@code --slice-at-from-name}) as complete snapshot slices, deletions by absence included.
 */
@Command(name = "load", mixinStandardHelpOptions = true, resourceBundle = "io.dimstream.cli.ConfigDefaults",
        description = {"Applies events to an entity's history table, through the same writer as the Kafka pipeline.",
                "It reads native JSON events (.jsonl), the rows of a .csv or .parquet file, or the rows of a query (--query); "
                        + "with --slice-at, or a directory and --slice-at-from-name, rows as complete snapshot slices of a "
                        + "mode: snapshot entity (keys absent from a slice are deleted at its instant).",
                "Prints what happened to the events, then each refused line or row with its reason.",
                "Exit 0 when it ran (even with refused lines); 2 for a bad config or option, a missing input or an "
                        + "unreachable database; 1 when it failed part-way (committed batches stay)."})
final class LoadCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the dimstream YAML config")
    Path config;

    @Option(names = "--entity", required = true, paramLabel = "NAME", description = "the entity of the config to load into")
    String entity;

    @Option(names = "--input", paramLabel = "FILE|DIR",
            description = "what to load, by its extension: .jsonl (also .ndjson): native events, one JSON object per line: "
                    + "{\"op\": \"upsert\"|\"delete\", \"event_time\": \"...Z\", \"data\": {...}}; .csv (a header line; also "
                    + ".csv.gz), .parquet: rows of the entity's columns by name; a directory: snapshot slices, one file each, "
                    + "with --slice-at-from-name")
    Path input;

    @Option(names = "--query", paramLabel = "SQL", description = "rows from this query on --source-jdbc instead of a file, streamed")
    String query;

    @Option(names = "--source-jdbc", paramLabel = "URL",
            description = "the JDBC URL --query runs on (credentials in the URL; its driver on the class path: PostgreSQL's is bundled)")
    String sourceJdbc;

    @Option(names = "--op-column", paramLabel = "COLUMN",
            description = "rows: the column holding each row's operation (upsert, insert, update: an upsert; delete); default: every row is an upsert")
    String opColumn;

    @Option(names = "--time-column", paramLabel = "COLUMN",
            description = "rows: the column holding each row's event time (a timestamp with zone; without one it is read as UTC; text with an offset)")
    String timeColumn;

    @Option(names = "--event-time", paramLabel = "INSTANT",
            description = "rows without a time column: the event time of every row, e.g. 2025-08-01T00:00:00Z")
    String eventTime;

    @Option(names = "--slice-at", paramLabel = "INSTANT",
            description = "rows: apply them as the complete snapshot slice at this instant (mode: snapshot entities)")
    String sliceAt;

    @Option(names = "--slice-at-from-name", paramLabel = "REGEX",
            description = "with --input DIR: every file is a slice; the regex matches the whole file name and its group t is the "
                    + "instant, e.g. 'customers_(?<t>\\d{4}-\\d{2}-\\d{2})\\.csv' (a date is its midnight UTC)")
    String sliceAtFromName;

    @Option(names = "--csv-delimiter", paramLabel = "CHAR", defaultValue = ",",
            description = "CSV files: the character between fields (default ','; ';' for the CSV of spreadsheets in many locales, "
                    + "'\\t' or a tab for TSV)")
    String csvDelimiter;

    @Option(names = "--batch-size", paramLabel = "N",
            description = "events per database transaction, at most: a batch also ends at a sixth of the heap, estimated "
                    + "(default: load.batch-size of the config, ${bundle:default.load.batch-size} if unset)")
    Integer batchSize;

    @Option(names = "--parallel", paramLabel = "N",
            description = "connections each batch is applied on at once, each with a disjoint set of keys in its own "
                    + "transaction (default: the machine's cores, at most 4 and at most postgres.pool-size); 1: one "
                    + "transaction per batch")
    Integer parallel;

    /** What an input file holds, by its name. */
    private enum Kind {
        JSONL, CSV, PARQUET;

        static Kind of(Path file) {
            String n = String.valueOf(file.getFileName()).toLowerCase(Locale.ROOT);
            if (n.endsWith(".jsonl") || n.endsWith(".ndjson")) {
                return JSONL;
            }
            if (n.endsWith(".csv") || n.endsWith(".csv.gz")) {
                return CSV;
            }
            if (n.endsWith(".parquet")) {
                return PARQUET;
            }
            throw usage("input " + file + ": unknown kind of file; the name must end in .jsonl or .ndjson (native events), "
                    + ".csv or .csv.gz, or .parquet");
        }
    }

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            DimstreamConfig cfg = CommandSupport.loadConfig(config);
            EntitySpec e = CommandSupport.entity(cfg, entity);
            int n = batchSize != null ? batchSize : cfg.batchSize();
            if (n < 1) {
                throw new CliFailure(CliFailure.USAGE, "--batch-size: must be at least 1, got " + n, null);
            }
            int p = parallel != null ? parallel
                    : Math.max(1, Math.min(Math.min(Runtime.getRuntime().availableProcessors(), 4), cfg.postgres().poolSize()));
            if (p < 1 || p > cfg.postgres().poolSize()) {
                throw new CliFailure(CliFailure.USAGE, "--parallel: must be from 1 to postgres.pool-size ("
                        + cfg.postgres().poolSize() + "), got " + p, null);
            }
            boolean slices = sliceAt != null || sliceAtFromName != null;
            checkOptions(slices, cfg.entity(entity).snapshot());
            PrintWriter out = spec.commandLine().getOut();
            if (query != null) {
                TabularSource.Mapping mapping = mapping();
                try (Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
                    CommandSupport.prepare(new EventFileLoader(db.dataSource(), e, n, p), e);
                    Instant start = Instant.now();
                    LoadReport report = loadRows(out, db.dataSource(), e, n, p, open(null, null), "query", mapping, start);
                    LoadReportPrinter.print(out, report, "row");
                }
                return 0;
            }
            if (Files.isDirectory(input)) {
                if (sliceAtFromName == null) {
                    throw usage("input " + input + " is a directory: a directory of snapshot slices needs --slice-at-from-name REGEX");
                }
                return loadDirectory(out, cfg, e, n, p);
            }
            if (sliceAtFromName != null) {
                throw usage("--slice-at-from-name: --input must be a directory of slices, got the file " + input);
            }
            Kind kind = Kind.of(input);
            if (kind == Kind.JSONL) {
                if (slices || opColumn != null || timeColumn != null || eventTime != null) {
                    throw usage("input " + input + ": native JSON events carry their own op and event_time; --op-column, "
                            + "--time-column, --event-time and --slice-at apply to .csv, .parquet and --query");
                }
                try (BufferedReader in = CommandSupport.openInput(input);
                     Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
                    LoadReport report = CommandSupport.prepareAndLoad(out, db.dataSource(), e, n, p, in,
                            String.valueOf(input.getFileName()));
                    LoadReportPrinter.print(out, report);
                }
                return 0;
            }
            requireReadable(input);
            TabularSource.Mapping mapping = mapping();
            try (Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
                CommandSupport.prepare(new EventFileLoader(db.dataSource(), e, n, p), e);
                LoadReport report = loadRows(out, db.dataSource(), e, n, p, open(kind, input), "file:" + input.getFileName(), mapping,
                        Instant.now());
                LoadReportPrinter.print(out, report, "row");
            }
            return 0;
        });
    }

    /** The options that go together, and those that do not, before anything is opened. */
    private void checkOptions(boolean slices, boolean snapshotEntity) {
        if ((input == null) == (query == null)) {
            throw usage("give what to load: --input FILE|DIR, or --query SQL with --source-jdbc URL (one of them)");
        }
        if (query != null && sourceJdbc == null) {
            throw usage("--query needs --source-jdbc URL, the database it runs on");
        }
        if (sourceJdbc != null && query == null) {
            throw usage("--source-jdbc goes with --query SQL");
        }
        if (sliceAt != null && sliceAtFromName != null) {
            throw usage("--slice-at and --slice-at-from-name exclude each other: one slice at an instant, or a directory of slices");
        }
        if (slices && !snapshotEntity) {
            throw usage((sliceAt != null ? "--slice-at" : "--slice-at-from-name") + ": entity " + entity + " is not mode: snapshot; "
                    + "a complete slice deletes the keys it does not carry, which only a snapshot entity does");
        }
        if (slices && (opColumn != null || timeColumn != null || eventTime != null)) {
            throw usage("every row of a slice is an upsert at the slice's instant: --op-column, --time-column and --event-time "
                    + "do not go with --slice-at or --slice-at-from-name");
        }
        if (sliceAtFromName != null && query != null) {
            throw usage("--slice-at-from-name reads a directory of files (--input DIR), not a query; use --slice-at with --query");
        }
    }

    /** How rows become events: a slice, or upserts (or --op-column) at --time-column or --event-time. */
    private TabularSource.Mapping mapping() {
        if (sliceAt != null) {
            return TabularSource.Mapping.slice(instant("--slice-at", sliceAt));
        }
        if (sliceAtFromName != null) {
            return null; // per file
        }
        if (timeColumn != null && eventTime != null) {
            throw usage("--time-column and --event-time exclude each other: each row's time from a column, or one time for all rows");
        }
        if (timeColumn == null && eventTime == null) {
            throw usage("rows need an event time: --time-column COLUMN (each row's, from the file) or --event-time INSTANT "
                    + "(one for every row, e.g. the export's time); or --slice-at INSTANT to load them as a snapshot slice");
        }
        return new TabularSource.Mapping(opColumn, timeColumn, eventTime == null ? null : instant("--event-time", eventTime));
    }

    private static Instant instant(String option, String text) {
        return ColumnType.parseInstant(text).orElseThrow(() ->
                usage(option + ": not an ISO-8601 instant with an offset (e.g. 2025-08-01T00:00:00Z): " + text));
    }

    private int loadDirectory(PrintWriter out, DimstreamConfig cfg, EntitySpec e, int n, int p) {
        List<SliceFileNames.SliceFile> files;
        try {
            files = SliceFileNames.list(input, sliceAtFromName);
        } catch (IllegalArgumentException ex) {
            throw usage(ex.getMessage());
        } catch (IOException ex) {
            throw usage("cannot list " + input + ": " + ex.getMessage());
        }
        for (SliceFileNames.SliceFile f : files) {
            Kind kind = Kind.of(f.file());
            if (kind == Kind.JSONL) {
                throw usage("input " + f.file() + ": a slice is a .csv or .parquet file, not native events");
            }
        }
        Instant start = Instant.now();
        try (Databases.Handle db = CommandSupport.openDatabase(cfg.postgres())) {
            CommandSupport.prepare(new EventFileLoader(db.dataSource(), e, n, p), e);
            for (SliceFileNames.SliceFile f : files) {
                out.println("slice " + f.slice() + " from " + f.file().getFileName() + ":");
                LoadReport report = loadRows(out, db.dataSource(), e, n, p, open(Kind.of(f.file()), f.file()),
                        "file:" + f.file().getFileName(), TabularSource.Mapping.slice(f.slice()), start);
                LoadReportPrinter.print(out, report, "row");
            }
        }
        return 0;
    }

    /** Loads the rows, as a slice when the mapping says so; closes them. */
    private LoadReport loadRows(PrintWriter out, DataSource ds, EntitySpec e, int n, int p, SourceRows rows, String name,
                                TabularSource.Mapping mapping, Instant start) {
        boolean slice = sliceAt != null || sliceAtFromName != null;
        try (TabularSource source = tabular(rows, e, mapping, name, start)) {
            return slice ? new SliceLoader(ds, e, n, p).load(source, name, mapping.fixedTime())
                    : new EventFileLoader(ds, e, n, p).load(source, name);
        } catch (LoadException ex) {
            out.println("stopped; the batches committed before the failure did:");
            LoadReportPrinter.print(out, ex.soFar(), "row");
            throw new CliFailure(CliFailure.FAILED, ex.getMessage(), ex);
        } catch (IOException ex) {
            throw new CliFailure(CliFailure.FAILED, "cannot close " + name + ": " + ex.getMessage(), ex);
        }
    }

    private static TabularSource tabular(SourceRows rows, EntitySpec e, TabularSource.Mapping mapping, String name, Instant start) {
        try {
            return new TabularSource(rows, e, mapping, name, start);
        } catch (IllegalArgumentException ex) {
            try {
                rows.close();
            } catch (SQLException closing) {
                ex.addSuppressed(closing);
            }
            throw usage(ex.getMessage());
        }
    }

    /** --csv-delimiter as one character ({@code \t} spelled out for a tab). */
    private char delimiter() {
        String d = "\\t".equals(csvDelimiter) ? "\t" : csvDelimiter;
        if (d.length() != 1 || d.charAt(0) == '"' || d.charAt(0) == '\n' || d.charAt(0) == '\r') {
            throw usage("--csv-delimiter: one character other than a quote or a line end (\\t for a tab), got '" + csvDelimiter + "'");
        }
        return d.charAt(0);
    }

    private SourceRows open(Kind kind, Path file) {
        try {
            if (file == null) {
                return SourceRows.query(sourceJdbc, query);
            }
            return kind == Kind.CSV ? SourceRows.csv(file, delimiter()) : SourceRows.parquet(file);
        } catch (SQLException ex) {
            throw usage("cannot read " + (file == null ? "--query on " + sourceJdbc : file) + ": " + ex.getMessage());
        } catch (IllegalArgumentException ex) {
            throw usage(ex.getMessage());
        }
    }

    private static void requireReadable(Path file) {
        if (!Files.exists(file)) {
            throw usage("input file not found: " + file);
        }
        if (!Files.isReadable(file)) {
            throw usage("input file " + file + " is not readable (permission denied)");
        }
    }

    private static CliFailure usage(String message) {
        return new CliFailure(CliFailure.USAGE, message, null);
    }
}
