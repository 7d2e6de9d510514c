package io.dimstream.db.read;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The column layout the read side selects and how its values cross JDBC: one select list per
 * entity (key, tracked, type-1, then the system columns, the table's own order), typed reads, and
 * typed binds of key values. Package-private: the queries use it, callers see {@link VersionRow}.
 */
final class Columns {

    private final EntitySpec entity;

    Columns(EntitySpec entity) {
        this.entity = entity;
    }

    /** Names of every selected column, in select-list order. */
    List<String> names() {
        SystemColumns sc = entity.system();
        List<String> all = new ArrayList<>(entity.dataColumns());
        all.addAll(List.of(sc.surrogateKey(), sc.validFrom(), sc.validTo(), sc.isCurrent(), sc.isDeleted(),
                sc.recordHash(), sc.sourceTopic(), sc.sourcePartition(), sc.sourceOffset(), sc.loadedAt()));
        return all;
    }

    /** How many columns {@link #select} produces. */
    int width() {
        return entity.dataColumns().size() + 10;
    }

    /** {@code alias."k", alias."a", ..., alias."loaded_at"}; no alias when {@code alias} is null. */
    String select(String alias) {
        return alias == null ? Sql.list(names()) : Sql.list(alias, names());
    }

    /** {@code "k1", "k2"} with a direction after each: the ORDER BY of key order. */
    String keyOrder(String alias, boolean descending) {
        String dir = descending ? " DESC" : "";
        return Sql.each(entity.key(), k -> (alias == null ? "" : alias + ".") + Sql.ident(k) + dir, ", ");
    }

    /**
     * Reads one row whose {@link #select} columns start at {@code first} (1-based); null when the
     * row's {@code valid_from} is NULL, i.e. the outer-join side that found nothing.
     */
    VersionRow read(ResultSet rs, int first) throws SQLException {
        int i = first;
        Map<String, Object> key = new LinkedHashMap<>();
        for (String k : entity.key()) {
            key.put(k, entity.type(k).read(rs, i++));
        }
        Map<String, Object> attributes = new LinkedHashMap<>();
        for (String a : entity.attributes()) {
            attributes.put(a, entity.type(a).read(rs, i++));
        }
        long surrogateKey = rs.getLong(i++);
        Instant validFrom = instant(rs, i++);
        if (validFrom == null) {
            return null;
        }
        Instant validTo = validTo(rs, i++);
        boolean current = rs.getBoolean(i++);
        boolean deleted = rs.getBoolean(i++);
        byte[] hash = rs.getBytes(i++);
        String topic = rs.getString(i++);
        int partition = rs.getInt(i++);
        Integer sourcePartition = rs.wasNull() ? null : partition;
        long offset = rs.getLong(i++);
        Long sourceOffset = rs.wasNull() ? null : offset;
        Instant loadedAt = instant(rs, i);
        return new VersionRow(key, attributes, surrogateKey, validFrom, validTo, current, deleted,
                hash == null ? null : HexFormat.of().formatHex(hash), topic, sourcePartition, sourceOffset, loadedAt);
    }

    /** Reads the key columns starting at {@code first} (1-based), in key order. */
    Map<String, Object> readKey(ResultSet rs, int first) throws SQLException {
        Map<String, Object> key = new LinkedHashMap<>();
        int i = first;
        for (String k : entity.key()) {
            key.put(k, entity.type(k).read(rs, i++));
        }
        return key;
    }

    /**
     * Checks and types a caller's key values (strings are accepted for every type, so a key
     * taken from a URL works).
     *
     * @throws IllegalArgumentException naming the key column that is missing, null or mistyped
     */
    List<Object> coerceKey(List<?> values) {
        List<String> cols = entity.key();
        if (values == null || values.size() != cols.size()) {
            throw new IllegalArgumentException("entity " + entity.name() + ": expected " + cols.size()
                    + " key value(s) for " + cols + ", got " + (values == null ? "none" : values.size()));
        }
        List<Object> typed = new ArrayList<>(cols.size());
        for (int i = 0; i < cols.size(); i++) {
            Object v = values.get(i);
            if (v == null) {
                throw new IllegalArgumentException("entity " + entity.name() + ": key column " + cols.get(i) + " must not be null");
            }
            try {
                typed.add(entity.type(cols.get(i)).coerce(v));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("entity " + entity.name() + ": key column " + cols.get(i) + ": " + e.getMessage(), e);
            }
        }
        return typed;
    }

    /** Binds the already {@link #coerceKey coerced} key values from parameter {@code first} on. */
    int bindKey(PreparedStatement ps, int first, List<Object> typed) throws SQLException {
        int i = first;
        for (int k = 0; k < typed.size(); k++) {
            bind(ps, i++, entity.type(entity.key().get(k)), typed.get(k));
        }
        return i;
    }

    static void bind(PreparedStatement ps, int index, ColumnType type, Object v) throws SQLException {
        if (v == null) {
            ps.setNull(index, Types.NULL);
            return;
        }
        switch (type) {
            case TEXT -> ps.setString(index, (String) v);
            case SMALLINT, INTEGER, BIGINT -> ps.setLong(index, (Long) v);
            case NUMERIC -> ps.setBigDecimal(index, (java.math.BigDecimal) v);
            case DOUBLE -> ps.setDouble(index, (Double) v);
            case BOOLEAN -> ps.setBoolean(index, (Boolean) v);
            case DATE -> ps.setObject(index, (LocalDate) v);
            case TIMESTAMPTZ -> ps.setObject(index, ((Instant) v).atOffset(ZoneOffset.UTC));
            case UUID_TYPE -> ps.setObject(index, (UUID) v);
            case TIMESTAMP -> ps.setObject(index, (LocalDateTime) v);
            case TIME -> ps.setObject(index, (LocalTime) v);
            case JSONB -> ps.setObject(index, (String) v, Types.OTHER); // the server types it from the column it meets
            case BYTEA -> ps.setBytes(index, (byte[]) v);
            default -> throw new IllegalStateException("unhandled column type " + type);
        }
    }

    static void bindInstant(PreparedStatement ps, int index, Instant t) throws SQLException {
        ps.setObject(index, t.atOffset(ZoneOffset.UTC));
    }

    /**
     * A {@code valid_to}: null for an open version, whether the table ends it at NULL or at
     * {@code 'infinity'} ({@code valid-to-current}; pgjdbc reads infinity as {@link OffsetDateTime#MAX}),
     * so every reader and page shows an open version alike.
     */
    static Instant validTo(ResultSet rs, int index) throws SQLException {
        OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
        return t == null || t.equals(OffsetDateTime.MAX) ? null : t.toInstant();
    }

    static Instant instant(ResultSet rs, int index) throws SQLException {
        OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }
}
