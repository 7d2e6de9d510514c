package io.dimstream.db.source;

import io.dimstream.db.sql.Sql;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/**
 * The rows of one CSV file, Parquet file or JDBC query, read forward once ({@link #next()}),
 * numbered from 1 in the order the source gives them. Not thread-safe; close it.
 */
public final class SourceRows implements AutoCloseable {

    /** Rows the query source's driver fetches at a time. */
    public static final int FETCH_SIZE = 10_000;

    private final Connection connection;
    private final PreparedStatement statement;
    private final ResultSet rs;
    private final List<String> columns;
    private final int[] types;
    private final String[] typeNames;
    private long row;

    private SourceRows(Connection connection, PreparedStatement statement, ResultSet rs) throws SQLException {
        this.connection = connection;
        this.statement = statement;
        this.rs = rs;
        ResultSetMetaData md = rs.getMetaData();
        List<String> names = new ArrayList<>(md.getColumnCount());
        types = new int[md.getColumnCount()];
        typeNames = new String[md.getColumnCount()];
        for (int i = 1; i <= md.getColumnCount(); i++) {
            names.add(md.getColumnLabel(i));
            types[i - 1] = md.getColumnType(i);
            typeNames[i - 1] = String.valueOf(md.getColumnTypeName(i)).toLowerCase(Locale.ROOT);
        }
        this.columns = Collections.unmodifiableList(names);
    }

    /** A CSV file with a header line; every value is text (see the package notes). */
    public static SourceRows csv(Path file) throws SQLException {
        return duckdb("SELECT * FROM read_csv(" + Sql.literal(plainPath(file)) + ", header = true, all_varchar = true, "
                + "allow_quoted_nulls = false, auto_detect = true)");
    }

    /** A Parquet file, its values typed. */
    public static SourceRows parquet(Path file) throws SQLException {
        return duckdb("SELECT * FROM read_parquet(" + Sql.literal(plainPath(file)) + ")");
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

    private static SourceRows duckdb(String sql) throws SQLException {
        Properties props = new Properties();
        props.setProperty("jdbc_stream_results", "true"); // else DuckDB materializes the whole result first
        Connection c = DriverManager.getConnection("jdbc:duckdb:", props);
        try {
            PreparedStatement p = c.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
            return new SourceRows(c, p, p.executeQuery());
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c, e);
            throw e;
        }
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

    /** Moves to the next row; false at the end. */
    public boolean next() throws SQLException {
        if (!rs.next()) {
            return false;
        }
        row++;
        return true;
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
