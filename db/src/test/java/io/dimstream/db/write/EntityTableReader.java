package io.dimstream.db.write;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Reads a whole entity table with plain JDBC into {@link ExpectedRow}s (ordered by key, then
 * valid_from, in Java so the order does not depend on the database collation), with the surrogate
 * key of each row beside it.
 */
public final class EntityTableReader {

    /** A row of the table and its surrogate key. */
    public record StoredRow(ExpectedRow row, long surrogateKey) {
    }

    private EntityTableReader() {
    }

    /** The table's rows, surrogate keys left out. */
    public static List<ExpectedRow> rows(DataSource ds, EntitySpec spec) throws SQLException {
        return withSurrogateKeys(ds, spec).stream().map(StoredRow::row).toList();
    }

    public static List<StoredRow> withSurrogateKeys(DataSource ds, EntitySpec spec) throws SQLException {
        return query(ds, spec, Sql.table(spec.table()));
    }

    /**
     * The rows of {@code from} (the table, or a function of its row type such as
     * {@code T_as_of(?, ?)}), each {@code ?} bound to the next of {@code params}, in the tests' order.
     */
    public static List<StoredRow> query(DataSource ds, EntitySpec spec, String from, Object... params) throws SQLException {
        SystemColumns sc = spec.system();
        List<String> cols = new ArrayList<>(spec.dataColumns());
        cols.addAll(List.of(sc.validFrom(), sc.validTo(), sc.isCurrent(), sc.isDeleted(), sc.recordHash(), sc.surrogateKey()));
        String sql = "SELECT " + Sql.list(cols) + " FROM " + from;
        List<StoredRow> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                p.setObject(i + 1, params[i]);
            }
            ResultSet rs = p.executeQuery();
            while (rs.next()) {
                Map<String, Object> key = new LinkedHashMap<>();
                for (String k : spec.key()) {
                    key.put(k, read(rs, k, spec.type(k)));
                }
                Map<String, Object> attrs = new LinkedHashMap<>();
                for (String a : spec.attributes()) {
                    attrs.put(a, read(rs, a, spec.type(a)));
                }
                OffsetDateTime to = rs.getObject(sc.validTo(), OffsetDateTime.class);
                ExpectedRow row = new ExpectedRow(key, attrs,
                        rs.getObject(sc.validFrom(), OffsetDateTime.class).toInstant(),
                        to == null ? null : to.toInstant(),
                        rs.getBoolean(sc.isCurrent()),
                        rs.getBoolean(sc.isDeleted()),
                        RecordHash.hex(rs.getBytes(sc.recordHash())));
                out.add(new StoredRow(row, rs.getLong(sc.surrogateKey())));
            }
        }
        Comparator<ExpectedRow> order = ReferenceModel.order(spec);
        out.sort((a, b) -> order.compare(a.row(), b.row()));
        return out;
    }

    private static Object read(ResultSet rs, String col, ColumnType t) throws SQLException {
        Object v = switch (t) {
            case TEXT -> rs.getString(col);
            case SMALLINT, INTEGER, BIGINT -> {
                long l = rs.getLong(col);
                yield rs.wasNull() ? null : l;
            }
            case NUMERIC -> rs.getBigDecimal(col);
            case DOUBLE -> {
                double d = rs.getDouble(col);
                yield rs.wasNull() ? null : d;
            }
            case BOOLEAN -> {
                boolean b = rs.getBoolean(col);
                yield rs.wasNull() ? null : b;
            }
            case DATE -> rs.getObject(col, LocalDate.class);
            case TIMESTAMPTZ -> {
                OffsetDateTime o = rs.getObject(col, OffsetDateTime.class);
                yield o == null ? null : (Object) o.toInstant();
            }
            case UUID_TYPE -> rs.getObject(col, UUID.class);
            case TIMESTAMP -> rs.getObject(col, LocalDateTime.class);
            case TIME -> rs.getObject(col, LocalTime.class);
            case JSONB -> {
                String json = rs.getString(col); // PostgreSQL's text, with its spaces: read back to the canonical text
                yield json == null ? null : t.coerce(json);
            }
            case BYTEA -> rs.getBytes(col);
        };
        return ExpectedRow.normalize(t, v);
    }
}
