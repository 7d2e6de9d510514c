package io.dimstream.db.source;

import io.dimstream.db.event.StrictUtf8;
import io.dimstream.db.sql.Sql;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.zip.GZIPInputStream;

/**
 * The rows of one CSV file, Parquet file or JDBC query, read forward once ({@link #next()}),
 * numbered from 1 in the order the source gives them. A CSV row the reader cannot parse (see
 * {@link #csv(Path)}) keeps its number and comes out with a {@link #rejection()} instead of
 * values. Not thread-safe; close it.
 */
public final class SourceRows implements AutoCloseable {

    /** Rows the query source's driver fetches at a time. */
    public static final int FETCH_SIZE = 10_000;
    /** The name of the result column {@link #parquet} adds; not a column of the file. */
    private static final String NOT_UTF8 = "dimstream: text column not UTF-8";

    private final Connection connection;
    private final PreparedStatement statement;
    private final ResultSet rs;
    private final List<String> columns;
    private final int[] types;
    private final String[] typeNames;
    /** A CSV file's unparseable rows, by row number: the reader's reasons; empty for other sources. */
    private final TreeMap<Long, String> rejects;
    private String rejection;
    /** The result's column naming a row's text column that is not UTF-8 (from 1; 0: none), see {@link #parquet}. */
    private final int notUtf8Column;
    /** A CSV file's rows with values, as the first read counted them; -1 for other sources. */
    private final long expectedGood;
    private long good;
    private boolean exhausted;
    private long row;

    private SourceRows(Connection connection, PreparedStatement statement, ResultSet rs) throws SQLException {
        this(connection, statement, rs, new TreeMap<>(), -1, false);
    }

    /** @param notUtf8Column the result's last column names the text column of a row that is not UTF-8 (a Parquet file's), not a value */
    private SourceRows(Connection connection, PreparedStatement statement, ResultSet rs, TreeMap<Long, String> rejects, long expectedGood,
                       boolean notUtf8Column) throws SQLException {
        this.connection = connection;
        this.statement = statement;
        this.rs = rs;
        this.rejects = rejects;
        this.expectedGood = expectedGood;
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount() - (notUtf8Column ? 1 : 0);
        this.notUtf8Column = notUtf8Column ? n + 1 : 0;
        List<String> names = new ArrayList<>(n);
        types = new int[n];
        typeNames = new String[n];
        for (int i = 1; i <= n; i++) {
            names.add(md.getColumnLabel(i));
            types[i - 1] = md.getColumnType(i);
            typeNames[i - 1] = String.valueOf(md.getColumnTypeName(i)).toLowerCase(Locale.ROOT);
        }
        this.columns = Collections.unmodifiableList(names);
    }

    /**
     * A CSV file (RFC 4180: comma-separated, {@code "}-quoted, a quote inside a quoted value doubled)
     * with a header line, gzip-compressed or not ({@link #isGzip}, by its first bytes); every value is
     * text (see the package notes). A row DuckDB's reader refuses
     * (more or fewer fields than the header, a quote left open or followed by more text, bytes that
     * are not UTF-8, a line over its size limit) does not stop the file: it keeps its row number and
     * comes out with its reason ({@link #rejection()}). So the file is read twice: once with
     * {@code store_rejects} to collect the refused rows from DuckDB's rejects table, once streaming
     * the others; the second read must give as many rows as the first counted, or the load stops.
     */
    public static SourceRows csv(Path file) throws SQLException {
        return csv(file, ',');
    }

    /**
     * As {@link #csv(Path)}, with fields separated by {@code delimiter} instead of a comma (a
     * semicolon for the CSV of spreadsheets in many locales, a tab for TSV). Not a quote, a line end or
     * a character that may start a value.
     */
    public static SourceRows csv(Path file, char delimiter) throws SQLException {
        if (delimiter == '"' || delimiter == '\n' || delimiter == '\r') {
            throw new IllegalArgumentException("a CSV delimiter cannot be a quote or a line end");
        }
        boolean gzip = isGzip(file);
        List<String> header = csvHeader(file, delimiter, gzip);
        StringBuilder columns = new StringBuilder("{");
        for (String h : header) {
            columns.append(columns.length() > 1 ? ", " : "").append(Sql.literal(h)).append(": 'VARCHAR'");
        }
        columns.append('}');
        // the dialect is fixed, not sniffed: DuckDB's sniffer fails on a file with an open quote and,
        // given bad rows, can settle on "no quote character" and keep quotes in the values
        String common = "read_csv(" + Sql.literal(plainPath(file)) + ", header = true, auto_detect = false, columns = " + columns
                + ", delim = " + Sql.literal(String.valueOf(delimiter)) + ", quote = '\"', escape = '\"', allow_quoted_nulls = false, "
                + "compression = " + (gzip ? "'gzip'" : "'none'") + ", ";
        TreeMap<Long, String> rejects = new TreeMap<>();
        long good;
        // a connection of its own, not streaming: with jdbc_stream_results the rejects table stays invisible
        try (Connection first = DriverManager.getConnection("jdbc:duckdb:"); Statement s = first.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + common + "store_rejects = true, "
                    + "rejects_table = 'dimstream_rejects', rejects_scan = 'dimstream_reject_scans') t WHERE hash(t) IS NOT NULL")) {
                r.next();
                good = r.getLong(1);
            }
            // line counts records, the header being line 1: row = line - 1; a record over several lines counts
            // once. A row can have several errors (a short row one per missing column): the first column's
            try (ResultSet r = s.executeQuery("SELECT line - 1, arg_min(lower(CAST(error_type AS VARCHAR)) || ': ' || error_message, "
                    + "column_idx) FROM dimstream_rejects GROUP BY line ORDER BY line")) {
                while (r.next()) {
                    rejects.put(r.getLong(1), "CSV " + r.getString(2));
                }
            }
        }
        // store_rejects again, not ignore_errors: with ignore_errors alone DuckDB 1.5 dropped every row after an
        // unquoted-value error. SELECT *: every column read, as hash(t) above, so the same rows are refused
        return streamed("SELECT * FROM " + common + "store_rejects = true)", rejects, good, false);
    }

    /** Whether a file is gzip-compressed: it starts with gzip's magic bytes, whatever its name. */
    public static boolean isGzip(Path file) throws SQLException {
        try (InputStream in = Files.newInputStream(file)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        } catch (IOException e) {
            throw new SQLException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** The names of a CSV file's header line (a UTF-8 byte order mark skipped), decoded strictly ({@link StrictUtf8}). */
    static List<String> csvHeader(Path file, char delimiter, boolean gzip) throws SQLException {
        plainPath(file);
        try (InputStream raw = Files.newInputStream(file);
             InputStream in = new BufferedInputStream(gzip ? new GZIPInputStream(raw) : raw)) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int b = in.read(); b >= 0 && b != '\n' && b != '\r'; b = in.read()) {
                bytes.write(b);
            }
            String line;
            try {
                line = StrictUtf8.decode(bytes.toByteArray());
            } catch (IllegalArgumentException e) {
                throw new SQLException("the header line of " + file + " is " + e.getMessage(), e);
            }
            if (line.isBlank()) {
                throw new SQLException(file + " is empty: a CSV file needs a header line naming its columns");
            }
            return headerFields(line.startsWith("\uFEFF") ? line.substring(1) : line, file, delimiter);
        } catch (IOException e) {
            throw new SQLException("cannot read the header line of " + file + ": " + e.getMessage(), e);
        }
    }

    /** The fields of one CSV header line (RFC 4180 quoting); a header with an open quote is refused. */
    static List<String> headerFields(String line, Path file, char delimiter) throws SQLException {
        List<String> fields = new ArrayList<>();
        StringBuilder f = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quoted) {
                if (ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    f.append('"');
                    i++;
                } else if (ch == '"') {
                    quoted = false;
                } else {
                    f.append(ch);
                }
            } else if (ch == '"' && f.isEmpty()) {
                quoted = true;
            } else if (ch == delimiter) {
                fields.add(f.toString().strip());
                f.setLength(0);
            } else {
                f.append(ch);
            }
        }
        if (quoted) {
            throw new SQLException("the header line of " + file + " has a quote that is not closed: " + line);
        }
        fields.add(f.toString().strip());
        return fields;
    }

    /**
     * A Parquet file, its values typed. A row with a text value that is not UTF-8 comes out with its
     * reason ({@link #rejection()}), the file going on: DuckDB's reader either stops the file at such
     * a value ({@code utf8_validation = 'strict'}) or mends it ({@code 'replace'} puts {@code ?} for
     * bad bytes, {@code 'ignore'} drops them), so the file is read in both mending modes side by side
     * ({@code POSITIONAL JOIN}, streamed) and a row whose texts differ between the two held bytes that
     * are not UTF-8, in any column (as a CSV row is refused for any of its columns). Texts that are
     * UTF-8 read the same in both modes; only the columns holding text (nested ones too) are read
     * twice. A column of Parquet's JSON type is checked by DuckDB as JSON whatever the mode: bytes that
     * are not UTF-8 there still stop the file, naming the value.
     */
    public static SourceRows parquet(Path file) throws SQLException {
        String read = "read_parquet(" + Sql.literal(plainPath(file)) + ", utf8_validation = ";
        List<String> texts = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet d = s.executeQuery("DESCRIBE SELECT * FROM " + read + "'ignore')")) {
            while (d.next()) {
                if (d.getString("column_type").contains("VARCHAR")) { // text, or nested types holding text
                    texts.add(d.getString("column_name"));
                }
            }
        }
        String sql = texts.isEmpty() ? "SELECT * FROM " + read + "'strict')"
                : "SELECT r.*, CASE " + Sql.each(texts, t -> "WHEN r." + Sql.ident(t) + " IS DISTINCT FROM i." + Sql.ident(t)
                        + " THEN " + Sql.literal(t), " ") + " END AS " + Sql.ident(NOT_UTF8) + " FROM " + read + "'replace') r "
                        + "POSITIONAL JOIN (SELECT " + Sql.list(texts) + " FROM " + read + "'ignore')) i";
        return streamed(sql, new TreeMap<>(), -1, !texts.isEmpty());
    }

    /** {@code sql} run on a DuckDB connection of its own that streams ({@link #duckdbConnection}), closed when it fails. */
    private static SourceRows streamed(String sql, TreeMap<Long, String> rejects, long expectedGood, boolean notUtf8Column)
            throws SQLException {
        Connection c = duckdbConnection();
        try {
            PreparedStatement p = c.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
            return new SourceRows(c, p, p.executeQuery(), rejects, expectedGood, notUtf8Column);
        } catch (SQLException e) {
            closeQuietly(c, e);
            throw explained(sql, e);
        } catch (RuntimeException e) {
            closeQuietly(c, e);
            throw e;
        }
    }

    /**
     * DuckDB 2.0's driver, streaming, reports an error in a result's first chunk only as
     * {@code Invalid result set} (a later chunk's error comes with its reason). The same query
     * counted on a connection that does not stream, every column read ({@code hash(t)}), fails with
     * the reason, which replaces it; anything else is returned as it is.
     */
    private static SQLException explained(String sql, SQLException e) {
        if (!String.valueOf(e.getMessage()).contains("Invalid result set")) {
            return e;
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM (" + sql + ") t WHERE hash(t) IS NOT NULL")) {
            return e;
        } catch (SQLException reason) {
            reason.addSuppressed(e);
            return reason;
        }
    }

    /**
     * The rows of {@code sql} run on the JDBC source {@code url} (its driver on the class path):
     * auto-commit off and read-only, {@value #FETCH_SIZE} rows fetched at a time, so PostgreSQL's
     * driver streams through a cursor.
     */
    public static SourceRows query(String url, String sql) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try {
            c.setAutoCommit(false);
            c.setReadOnly(true);
            PreparedStatement p = c.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
            p.setFetchSize(FETCH_SIZE);
            return new SourceRows(c, p, p.executeQuery());
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c, e);
            throw e;
        }
    }

    private static Connection duckdbConnection() throws SQLException {
        Properties props = new Properties();
        props.setProperty("jdbc_stream_results", "true"); // else DuckDB materializes the whole result first
        return DriverManager.getConnection("jdbc:duckdb:", props);
    }

    /** DuckDB reads {@code * ? [ {} } in a path as a glob: a file path must not have them. */
    private static String plainPath(Path file) {
        String s = file.toAbsolutePath().toString();
        for (char g : new char[] {'*', '?', '[', '{'}) {
            if (s.indexOf(g) >= 0) {
                throw new IllegalArgumentException("input " + file + ": a path with '" + g + "' is read as a pattern; rename the file");
            }
        }
        return s;
    }

    /** The column names, in the source's order. */
    public List<String> columns() {
        return columns;
    }

    /** Moves to the next row (a good one, or one with a {@link #rejection()}); false at the end. */
    public boolean next() throws SQLException {
        rejection = rejects.remove(row + 1);
        if (rejection != null) {
            row++;
            return true;
        }
        if (!exhausted && rs.next()) {
            row++;
            good++;
            String notUtf8 = notUtf8Column > 0 ? rs.getString(notUtf8Column) : null;
            if (notUtf8 != null) {
                rejection = "Parquet column " + notUtf8 + " holds text that is not valid UTF-8";
            }
            return true;
        }
        if (!exhausted && expectedGood >= 0 && good != expectedGood) {
            throw new SQLException("the CSV reader gave " + good + " rows with values the second time it read the file, "
                    + expectedGood + " the first time; its refused rows cannot be numbered");
        }
        exhausted = true;
        Map.Entry<Long, String> left = rejects.pollFirstEntry(); // none expected: every refused row lies before a good one or at the end
        if (left == null) {
            return false;
        }
        row = left.getKey();
        rejection = left.getValue();
        return true;
    }

    /**
     * Why the reader refused the current row (a CSV row it cannot parse: DuckDB's error type and
     * message), or null for a row with values. A refused row has no values.
     */
    public String rejection() {
        return rejection;
    }

    /** The current row's number, from 1. */
    public long rowNumber() {
        return row;
    }

    /**
     * The value of column {@code i} (from 0) of the current row as a plain Java value (String, Long,
     * BigInteger, BigDecimal, Double, Boolean, Instant, LocalDateTime, LocalDate, LocalTime, UUID,
     * byte[]) or null.
     *
     * @throws IllegalArgumentException for a type dimstream cannot take (nested types), naming the column
     */
    public Object value(int i) throws SQLException {
        if (rejection != null) {
            throw new IllegalStateException("row " + row + " was refused by the reader: " + rejection);
        }
        int col = i + 1;
        String name = typeNames[i];
        Object v = switch (types[i]) {
            case Types.TIMESTAMP_WITH_TIMEZONE -> instant(rs.getObject(col, OffsetDateTime.class));
            // PostgreSQL's driver reports timestamptz as TIMESTAMP, named by its type name
            case Types.TIMESTAMP -> name.contains("tz") || name.contains("with time zone")
                    ? instant(rs.getObject(col, OffsetDateTime.class)) : rs.getObject(col, LocalDateTime.class);
            case Types.DATE -> rs.getObject(col, LocalDate.class);
            case Types.TIME -> rs.getObject(col, LocalTime.class);
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> rs.getBytes(col);
            case Types.NUMERIC, Types.DECIMAL -> rs.getBigDecimal(col);
            case Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT -> {
                Object o = rs.getObject(col);
                yield o instanceof BigInteger || o == null ? o : (Object) ((Number) o).longValue();
            }
            case Types.DOUBLE, Types.FLOAT, Types.REAL -> {
                double d = rs.getDouble(col);
                yield rs.wasNull() ? null : d;
            }
            case Types.BOOLEAN, Types.BIT -> {
                boolean b = rs.getBoolean(col);
                yield rs.wasNull() ? null : b;
            }
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR, Types.CLOB -> rs.getString(col);
            case Types.ARRAY, Types.STRUCT, Types.JAVA_OBJECT -> throw nested(i);
            default -> other(col, i);
        };
        return v;
    }

    private Object other(int col, int i) throws SQLException {
        String name = typeNames[i];
        if (name.startsWith("struct") || name.startsWith("map") || name.startsWith("union") || name.endsWith("[]")) {
            throw nested(i);
        }
        Object o = rs.getObject(col);
        if (o == null || o instanceof String || o instanceof UUID || o instanceof BigInteger || o instanceof BigDecimal
                || o instanceof Boolean || o instanceof byte[]) {
            return o;
        }
        if (o instanceof Number n) {
            return n instanceof Double || n instanceof Float ? (Object) n.doubleValue() : (Object) n.longValue();
        }
        return rs.getString(col); // json, jsonb, interval, enum, ...: the source's text
    }

    private IllegalArgumentException nested(int i) {
        return new IllegalArgumentException("column '" + columns.get(i) + "' has type " + typeNames[i]
                + ", which dimstream does not read from a file; cast it in a query (to JSON text, say)");
    }

    private static Object instant(OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }

    @Override
    public void close() throws SQLException {
        SQLException failure = null;
        for (AutoCloseable a : new AutoCloseable[] {rs, statement}) {
            try {
                a.close();
            } catch (Exception e) {
                failure = failure == null ? new SQLException("cannot close the source: " + e.getMessage(), e) : failure;
            }
        }
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback(); // a query source only read
            }
        } catch (SQLException e) {
            failure = failure == null ? e : failure;
        }
        connection.close();
        if (failure != null) {
            throw failure;
        }
    }

    private static void closeQuietly(Connection c, Exception cause) {
        try {
            c.close();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
