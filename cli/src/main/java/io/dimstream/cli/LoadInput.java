package io.dimstream.cli;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * What {@code load --input} names and how it is opened: the kind of a file by {@code --format} or
 * its name, standard input for {@code -}, gzip by its first bytes (whatever the name).
 */
final class LoadInput {

    /** {@code --input -}: standard input. */
    static final String STDIN = "-";

    private LoadInput() {
    }

    /** What an input holds. */
    enum Kind {
        JSONL, CSV, PARQUET;

        /**
         * The kind {@code --format} names, else the kind of {@code file}'s name: {@code .jsonl} and
         * {@code .ndjson} (also {@code .gz}), {@code .csv} (also {@code .csv.gz}), {@code .parquet};
         * standard input without {@code --format} is JSON lines.
         */
        static Kind of(Path file, String format) {
            if (format != null) {
                return switch (format.trim().toLowerCase(Locale.ROOT)) {
                    case "jsonl", "ndjson" -> JSONL;
                    case "csv" -> CSV;
                    case "parquet" -> PARQUET;
                    default -> throw usage("--format: '" + format + "' is not jsonl, csv or parquet");
                };
            }
            if (isStdin(file)) {
                return JSONL;
            }
            String n = String.valueOf(file.getFileName()).toLowerCase(Locale.ROOT);
            if (n.endsWith(".jsonl") || n.endsWith(".ndjson") || n.endsWith(".jsonl.gz") || n.endsWith(".ndjson.gz")) {
                return JSONL;
            }
            if (n.endsWith(".csv") || n.endsWith(".csv.gz")) {
                return CSV;
            }
            if (n.endsWith(".parquet")) {
                return PARQUET;
            }
            String json = n.endsWith(".json") || n.endsWith(".json.gz")
                    ? " (a .json file of one event per line is --format jsonl; a JSON array is not read: 'jq -c .[]' makes lines of it)"
                    : "";
            throw usage("input " + file + ": its name does not say what it holds: give --format jsonl (native events, one JSON "
                    + "object per line), --format csv or --format parquet" + json + "; by name, dimstream reads .jsonl, .ndjson, "
                    + ".csv (each also .gz) and .parquet");
        }
    }

    static boolean isStdin(Path input) {
        return input != null && STDIN.equals(input.toString());
    }

    /** The name an input goes by in lineage and messages: its file name, or {@code stdin}. */
    static String name(Path input) {
        return isStdin(input) ? "stdin" : String.valueOf(input.getFileName());
    }

    /**
     * A text input (JSON lines) as bytes: the file or {@code stdin}, decompressed when it is gzip. Its
     * lines are decoded one by one, strictly ({@code JsonLinesSource}): a Reader over UTF-8 would put
     * U+FFFD for bytes that are not UTF-8 instead of refusing their line.
     */
    static InputStream bytes(Path input, InputStream stdin) {
        if (isStdin(input)) {
            return reader(stdin, "standard input");
        }
        if (Files.isDirectory(input)) {
            throw usage("input " + input + " is a directory, not a file");
        }
        try {
            return reader(Files.newInputStream(input), input.toString());
        } catch (NoSuchFileException e) {
            throw new CliFailure(CliFailure.USAGE, "input file not found: " + input, e);
        } catch (AccessDeniedException e) {
            throw new CliFailure(CliFailure.USAGE, "input file " + input + " is not readable (permission denied)", e);
        } catch (IOException e) {
            throw new CliFailure(CliFailure.USAGE, "cannot open input file " + input + ": " + e.getMessage(), e);
        }
    }

    private static InputStream reader(InputStream raw, String what) {
        try {
            BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
            in.mark(2);
            boolean gzip = in.read() == 0x1f && in.read() == 0x8b;
            in.reset();
            return gzip ? new GZIPInputStream(in, 1 << 16) : in;
        } catch (IOException e) {
            throw new CliFailure(CliFailure.USAGE, "cannot read " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * Standard input copied to a temporary file, for the readers that need a file (CSV is read twice,
     * Parquet from its end); the caller deletes it.
     */
    static Path spool(InputStream stdin, Kind kind) {
        try {
            Path tmp = Files.createTempFile("dimstream-load-stdin-", kind == Kind.PARQUET ? ".parquet" : ".csv");
            try {
                Files.copy(stdin, tmp, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                Files.deleteIfExists(tmp);
                throw e;
            }
            return tmp;
        } catch (IOException e) {
            throw new CliFailure(CliFailure.USAGE, "cannot copy standard input to a temporary file: " + e.getMessage(), e);
        }
    }

    /**
     * When a CSV's header seems separated by another character than {@code used} (the columns did
     * not fit): the hint naming the header and the {@code --csv-delimiter} to give; else "".
     */
    static String delimiterHint(List<String> columns, char used) {
        String header = String.join(String.valueOf(used), columns);
        char best = 0;
        long most = 0;
        for (char c : new char[] {',', ';', '\t', '|'}) {
            long n = header.chars().filter(x -> x == c).count();
            if (c != used && n > most) {
                best = c;
                most = n;
            }
        }
        if (most == 0) {
            return "";
        }
        String shown = best == '\t' ? "\\t" : String.valueOf(best);
        return "; the header line reads '" + header.replace("\t", "\\t") + "': if its fields are separated by '" + shown
                + "', give --csv-delimiter '" + shown + "'";
    }

    static void requireReadable(Path file) {
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
