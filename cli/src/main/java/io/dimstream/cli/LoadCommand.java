package io.dimstream.cli;

import io.dimstream.app.load.EventFileLoader;
import io.dimstream.app.load.LoadException;
import io.dimstream.app.load.LoadFields;
import io.dimstream.app.load.LoadReport;
import io.dimstream.app.load.SliceFileNames;
import io.dimstream.app.load.SliceLoader;
import io.dimstream.app.load.TabularSource;
import io.dimstream.cli.LoadInput.Kind;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.TimeTexts;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.source.SourceRows;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dimstream load}: applies native JSON events, the rows of a CSV or Parquet file, or the
 * rows of a query through the SCD2 writer; with {@code --slice-at} (or a directory and
 * {@code --slice-at-from-name}) as complete snapshot slices, deletions by absence included. What
 * {@code --input} names and how it is opened is {@link LoadInput}'s; the exit code for refused rows
 * is {@link LoadTally}'s.
 */
@Command(name = "load", mixinStandardHelpOptions = true, resourceBundle = "io.dimstream.cli.ConfigDefaults",
        description = {"Applies events to an entity's history table, through the same writer as the Kafka pipeline.",
                "It reads native JSON events (.jsonl), the rows of a .csv or .parquet file, or the rows of a query (--query).",
                "With --slice-at, or a directory and --slice-at-from-name, the rows are complete snapshot slices of a mode: snapshot "
                        + "entity, and keys absent from a slice are deleted at its instant.",
                "It prints what happened to the events, then each refused line or row with its reason."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
                "0:It ran, and no line or row was refused, or some were (each is listed) and --fail-on-reject is not given.",
                "1:It failed part-way; the batches committed before the failure stay, and loading the input again converges.",
                "2:Nothing was loaded: a bad config or option, a missing or unreadable input, an input whose kind or columns do not "
                        + "fit, or an unreachable database.",
                "3:It ran, and every line or row was refused, or some were and --fail-on-reject is given; the others were "
                        + "applied."})
final class LoadCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "The dimstream YAML config.")
    Path config;

    @Option(names = "--entity", required = true, paramLabel = "NAME", description = "The entity of the config to load into.")
    String entity;

    @Option(names = "--input", paramLabel = "FILE|DIR|-",
            description = {"What to load. A file is known by the end of its name: jsonl or ndjson holds native events, one "
                    + "JSON object per line ({\"op\": \"upsert\"|\"delete\", \"event_time\": \"...\", \"data\": {...}}); csv "
                    + "holds rows with a header line; parquet holds rows; jsonl, ndjson and csv may also end in gz (gzip). "
                    + "Other names need --format.",
                    "A directory holds snapshot slices, one file each, with --slice-at-from-name.",
                    "A '-' reads standard input: JSON lines unless --format says otherwise."})
    Path input;

    @Option(names = "--format", paramLabel = "jsonl|csv|parquet",
            description = "What --input holds, whatever its name says (needed for names like events.json, events.txt or no "
                    + "extension; standard input is jsonl without it).")
    String format;

    @Option(names = "--query", paramLabel = "SQL", description = "Rows from this query on --source-jdbc instead of a file, streamed.")
    String query;

    @Option(names = "--source-jdbc", paramLabel = "URL",
            description = "The JDBC URL --query runs on (credentials in the URL; its driver on the class path: PostgreSQL's is "
                    + "bundled).")
    String sourceJdbc;

    @Option(names = "--op-column", paramLabel = "COLUMN",
            description = "Rows: the column holding each row's operation (upsert, insert and update are upserts; delete); "
                    + "without it every row is an upsert.")
    String opColumn;

    @Option(names = "--time-column", paramLabel = "COLUMN",
            description = "Rows: the column holding each row's event time: a timestamp with a zone, or a text such as "
                    + "2025-08-20 09:00:00+00 (PostgreSQL), 2025-08-20T09:00:00.000Z (Spark) or 2025-08-20 (midnight).")
    String timeColumn;

    @Option(names = "--event-time", paramLabel = "INSTANT",
            description = "Rows without a time column: the event time of every row, e.g. 2025-08-01T00:00:00Z.")
    String eventTime;

    @Option(names = "--time-zone", paramLabel = "ZONE",
            description = "The zone of date-times written without a UTC offset (2025-08-20 09:00:00, 2025-08-20), e.g. UTC or "
                    + "Europe/Berlin: event times, timestamptz values and a Parquet TIMESTAMP are read in it. Without it such "
                    + "texts are refused for event times and timestamptz columns, and a Parquet TIMESTAMP is read as UTC.")
    String timeZone;

    @Option(names = "--slice-at", paramLabel = "INSTANT",
            description = "Rows: apply them as the complete snapshot slice at this instant (mode: snapshot entities).")
    String sliceAt;

    @Option(names = "--slice-at-from-name", paramLabel = "REGEX",
            description = "With --input DIR, every file is a slice; the regex matches the whole file name and its group t is the "
                    + "instant, e.g. 'customers_(?<t>\\d{4}-\\d{2}-\\d{2})\\.csv' (a date is its midnight UTC).")
    String sliceAtFromName;

    @Option(names = "--csv-delimiter", paramLabel = "CHAR", defaultValue = ",",
            description = "CSV files: the character between fields (default ','); ';' for the CSV of spreadsheets in many "
                    + "locales, '\\t' or a tab for TSV, '|' for pipes.")
    String csvDelimiter;

    @Option(names = "--fail-on-reject",
            description = "Exit with code 3 when any line or row was refused (the others are still applied); without it, "
                    + "code 3 only when every one was.")
    boolean failOnReject;

    @Option(names = "--batch-size", paramLabel = "N",
            description = "Events per database transaction, at most; a batch also ends at a sixth of the heap, estimated "
                    + "(default: load.batch-size of the config, ${bundle:default.load.batch-size} if unset).")
    Integer batchSize;

    @Option(names = "--parallel", paramLabel = "N",
            description = "Connections each batch is applied on at once, each with a disjoint set of keys in its own "
                    + "transaction (default: the machine's cores, at most 4 and at most postgres.pool-size); 1 makes one "
                    + "transaction per batch.")
    Integer parallel;

    /** Where the events go, and how texts are read. */
    private record Target(DimstreamConfig cfg, EntitySpec entity, LoadFields fields, int batchSize, int parallel, TimeTexts times) {

        /** A loader of the target's entity, each event's fields as its config says. */
        EventFileLoader loader(DataSource ds) {
            return new EventFileLoader(ds, entity, batchSize, parallel, fields);
        }
    }

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            DimstreamConfig cfg = CommandSupport.loadResolvedConfig(config, spec.commandLine().getErr());
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
            checkOptions(sliceAt != null || sliceAtFromName != null, cfg.entity(entity).snapshot());
            Target t = new Target(cfg, e, LoadFields.of(cfg.entity(entity)), n, p, new TimeTexts(zone()));
            PrintWriter out = spec.commandLine().getOut();
            LoadTally tally;
            if (query != null) {
                tally = loadQuery(out, t);
            } else if (!LoadInput.isStdin(input) && Files.isDirectory(input)) {
                if (sliceAtFromName == null) {
                    throw usage("input " + input + " is a directory: a directory of snapshot slices needs --slice-at-from-name REGEX");
                }
                tally = loadDirectory(out, t);
            } else {
                tally = loadFile(out, t);
            }
            return tally.exitCode(failOnReject);
        });
    }

    private LoadTally loadQuery(PrintWriter out, Target t) {
        TabularSource.Mapping mapping = mapping(t.times());
        LoadTally tally = new LoadTally("row");
        try (Databases.Handle db = CommandSupport.openDatabase(t.cfg().postgres())) {
            CommandSupport.prepare(t.loader(db.dataSource()), t.entity());
            LoadReport report = loadRows(out, db.dataSource(), t, open(null, null), "query", null, mapping, Instant.now());
            LoadReportPrinter.print(out, tally.add(report), "row");
        }
        return tally;
    }

    /** One file, or standard input: JSON lines streamed; CSV and Parquet from the file (standard input copied to one first). */
    private LoadTally loadFile(PrintWriter out, Target t) {
        if (sliceAtFromName != null) {
            throw usage("--slice-at-from-name: --input must be a directory of slices, got the file " + input);
        }
        Kind kind = Kind.of(input, format);
        String name = LoadInput.name(input);
        if (kind == Kind.JSONL) {
            if (sliceAt != null || opColumn != null || timeColumn != null || eventTime != null) {
                throw usage("input " + input + ": native JSON events carry their own op and event_time; --op-column, "
                        + "--time-column, --event-time and --slice-at apply to CSV, Parquet and --query");
            }
            LoadTally tally = new LoadTally("line");
            try (InputStream in = LoadInput.bytes(input, System.in);
                 Databases.Handle db = CommandSupport.openDatabase(t.cfg().postgres())) {
                LoadReport report = CommandSupport.prepareAndLoad(out, db.dataSource(), t.entity(), t.fields(), t.batchSize(), t.parallel(),
                        in, name, t.times(), () -> arrival(t, db.dataSource(), input, kind, null));
                LoadReportPrinter.print(out, tally.add(report));
            } catch (IOException ex) {
                throw new CliFailure(CliFailure.FAILED, "cannot close " + name + ": " + ex.getMessage(), ex);
            }
            return tally;
        }
        TabularSource.Mapping mapping = mapping(t.times());
        boolean stdin = LoadInput.isStdin(input);
        Path file = stdin ? LoadInput.spool(System.in, kind) : input;
        try {
            LoadInput.requireReadable(file);
            LoadTally tally = new LoadTally("row");
            try (Databases.Handle db = CommandSupport.openDatabase(t.cfg().postgres())) {
                CommandSupport.prepare(t.loader(db.dataSource()), t.entity());
                Instant start = stdin ? Instant.now() : arrival(t, db.dataSource(), file, kind, mapping);
                LoadReport report = loadRows(out, db.dataSource(), t, open(kind, file), "file:" + name, kind, mapping, start);
                LoadReportPrinter.print(out, tally.add(report), "row");
            }
            return tally;
        } finally {
            if (stdin) {
                deleteSpooled(file);
            }
        }
    }

    private static void deleteSpooled(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ex) {
            throw new CliFailure(CliFailure.FAILED, "cannot delete the temporary copy of standard input " + file + ": "
                    + ex.getMessage(), ex);
        }
    }

    private ZoneId zone() {
        if (timeZone == null) {
            return null;
        }
        try {
            return ZoneId.of(timeZone.trim());
        } catch (DateTimeException ex) {
            throw usage("--time-zone: '" + timeZone + "' is not a time zone; give a region such as Europe/Berlin, UTC, or an "
                    + "offset such as +02:00");
        }
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
    private TabularSource.Mapping mapping(TimeTexts times) {
        if (sliceAt != null) {
            return TabularSource.Mapping.slice(instant("--slice-at", sliceAt, times));
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
        return new TabularSource.Mapping(opColumn, timeColumn, eventTime == null ? null : instant("--event-time", eventTime, times));
    }

    /** An option's instant, read as a file's times are ({@link TimeTexts}: an offset, or --time-zone). */
    private static Instant instant(String option, String text, TimeTexts times) {
        try {
            return times.instant(text);
        } catch (IllegalArgumentException ex) {
            throw usage(option + ": " + ex.getMessage());
        }
    }

    private LoadTally loadDirectory(PrintWriter out, Target t) {
        List<SliceFileNames.SliceFile> files;
        try {
            files = SliceFileNames.list(input, sliceAtFromName);
        } catch (IllegalArgumentException ex) {
            throw usage(ex.getMessage());
        } catch (IOException ex) {
            throw usage("cannot list " + input + ": " + ex.getMessage());
        }
        for (SliceFileNames.SliceFile f : files) {
            if (Kind.of(f.file(), format) == Kind.JSONL) {
                throw usage("input " + f.file() + ": a slice is a CSV or Parquet file, not native events");
            }
        }
        LoadTally tally = new LoadTally("row");
        try (Databases.Handle db = CommandSupport.openDatabase(t.cfg().postgres())) {
            CommandSupport.prepare(t.loader(db.dataSource()), t.entity());
            for (SliceFileNames.SliceFile f : files) {
                out.println("slice " + f.slice() + " from " + f.file().getFileName() + ":");
                Kind kind = Kind.of(f.file(), format);
                TabularSource.Mapping mapping = TabularSource.Mapping.slice(f.slice());
                LoadReport report = loadRows(out, db.dataSource(), t, open(kind, f.file()), "file:" + f.file().getFileName(), kind,
                        mapping, arrival(t, db.dataSource(), f.file(), kind, mapping));
                LoadReportPrinter.print(out, tally.add(report), "row");
            }
        }
        return tally;
    }

    /** Loads the rows ({@code kind} null for a query), as a slice when the mapping says so; closes them. */
    private LoadReport loadRows(PrintWriter out, DataSource ds, Target t, SourceRows rows, String name, Kind kind,
                                TabularSource.Mapping mapping, Instant start) {
        boolean slice = sliceAt != null || sliceAtFromName != null;
        try (TabularSource source = tabular(rows, shape(ds, t, rows), t, mapping, name, kind, start)) {
            return slice ? new SliceLoader(ds, t.entity(), t.batchSize(), t.parallel(), t.fields()).load(source, name, mapping.fixedTime())
                    : t.loader(ds).load(source, name);
        } catch (LoadException ex) {
            out.println("stopped; the batches committed before the failure did:");
            LoadReportPrinter.print(out, ex.soFar(), "row");
            throw new CliFailure(CliFailure.FAILED, ex.getMessage(), ex);
        } catch (IOException ex) {
            throw new CliFailure(CliFailure.FAILED, "cannot close " + name + ": " + ex.getMessage(), ex);
        }
    }

    /** The entity's shape now: its config's columns and those added while running, which a file may hold too. */
    private static EntitySpec shape(DataSource ds, Target t, SourceRows rows) {
        try {
            return EntityShapes.of(ds, t.entity()).current(t.entity().name());
        } catch (SQLException ex) {
            try {
                rows.close();
            } catch (SQLException closing) {
                ex.addSuppressed(closing);
            }
            throw new CliFailure(CliFailure.FAILED, "cannot read the columns of entity " + t.entity().name() + ": " + ex.getMessage(), ex);
        }
    }

    /** The rows as events; columns that do not fit are a usage failure, with the delimiter the header seems to use for a CSV. */
    private TabularSource tabular(SourceRows rows, EntitySpec shape, Target t, TabularSource.Mapping mapping, String name, Kind kind,
                                  Instant start) {
        try {
            return new TabularSource(rows, shape, mapping, name, start, t.times());
        } catch (IllegalArgumentException ex) {
            try {
                rows.close();
            } catch (SQLException closing) {
                ex.addSuppressed(closing);
            }
            throw usage(ex.getMessage() + (kind == Kind.CSV ? LoadInput.delimiterHint(rows.columns(), delimiter()) : ""));
        }
    }

    /**
     * The start {@code file}'s seqs count from: its first load's, when it is read as before
     * ({@link LoadArrival}; the reading is the options that shape its events and the entity's config).
     */
    private Instant arrival(Target t, DataSource ds, Path file, Kind kind, TabularSource.Mapping mapping) {
        if (LoadInput.isStdin(file)) {
            return Instant.now();
        }
        String reading = String.join("\n", "kind=" + kind, "mapping=" + mapping, "time-zone=" + timeZone,
                "csv-delimiter=" + (kind == Kind.CSV ? delimiter() : ""), "entity=" + t.cfg().entity(entity));
        return LoadArrival.ofFile(ds, entity, file, reading, Instant.now());
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

    private static CliFailure usage(String message) {
        return new CliFailure(CliFailure.USAGE, message, null);
    }
}
