package io.dimstream.db.read;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Test data builder for version rows of one entity: makes the {@link VersionRow} a test expects
 * and inserts exactly that row with a plain INSERT (the writer is not involved).
 */
final class Versions {

    static final Instant LOADED = Instant.parse("2025-06-01T12:00:00Z");
    static final String TOPIC = "crm.customers";

    private final EntitySpec e;
    private long offset;

    Versions(EntitySpec e) {
        this.e = e;
    }

    /** A version from {@code from} to {@code to} (null: open), not deleted, with lineage. */
    VersionRow version(List<?> key, List<?> attributes, long surrogateKey, Instant from, Instant to) {
        return row(key, attributes, surrogateKey, from, to, false, to == null);
    }

    /** A row with any flags, for hand-made broken tables. */
    VersionRow row(List<?> key, List<?> attributes, long surrogateKey, Instant from, Instant to, boolean deleted, boolean current) {
        Map<String, Object> k = zip(e.key(), key);
        Map<String, Object> a = zip(e.attributes(), attributes);
        return new VersionRow(k, a, surrogateKey, from, to, current, deleted, hash(a), TOPIC, 0, offset++, LOADED);
    }

    /** The delete of {@code previous} at {@code at}: an open is_deleted row carrying its attributes and hash. */
    VersionRow deleted(VersionRow previous, long surrogateKey, Instant at) {
        return new VersionRow(previous.key(), previous.attributes(), surrogateKey, at, null, false, true,
                previous.recordHash(), TOPIC, 0, offset++, LOADED);
    }

    /** The same row without lineage, as a file load writes it. */
    static VersionRow withoutLineage(VersionRow r) {
        return new VersionRow(r.key(), r.attributes(), r.surrogateKey(), r.validFrom(), r.validTo(), r.current(), r.deleted(),
                r.recordHash(), null, null, null, r.loadedAt());
    }

    /** Inserts into a table dimstream created ({@code is_current} is generated, so not written). */
    void insert(DataSource ds, VersionRow... rows) throws SQLException {
        insert(ds, false, rows);
    }

    /** Inserts into a hand-made table with a plain {@code is_current} column. */
    void insertWithCurrentFlag(DataSource ds, VersionRow... rows) throws SQLException {
        insert(ds, true, rows);
    }

    private void insert(DataSource ds, boolean withCurrent, VersionRow... rows) throws SQLException {
        SystemColumns sc = e.system();
        List<String> cols = new ArrayList<>(e.dataColumns());
        cols.addAll(List.of(sc.surrogateKey(), sc.validFrom(), sc.validTo(), sc.isDeleted(), sc.recordHash(),
                sc.sourceTopic(), sc.sourcePartition(), sc.sourceOffset(), sc.loadedAt()));
        if (withCurrent) {
            cols.add(sc.isCurrent());
        }
        String values = cols.stream().map(c -> c.equals(sc.recordHash()) ? "decode(?, 'hex')" : "?").collect(Collectors.joining(", "));
        String sql = "INSERT INTO " + Sql.table(e.table()) + " (" + Sql.list(cols) + ") VALUES (" + values + ")";
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (VersionRow r : rows) {
                int i = 1;
                for (String k : e.key()) {
                    Columns.bind(ps, i++, e.type(k), r.key().get(k));
                }
                for (String a : e.attributes()) {
                    Columns.bind(ps, i++, e.type(a), r.attributes().get(a));
                }
                ps.setLong(i++, r.surrogateKey());
                ps.setObject(i++, r.validFrom().atOffset(ZoneOffset.UTC));
                ps.setObject(i++, r.validTo() != null ? r.validTo().atOffset(ZoneOffset.UTC) : openEnd(), Types.TIMESTAMP_WITH_TIMEZONE);
                ps.setBoolean(i++, r.deleted());
                ps.setString(i++, r.recordHash());
                ps.setString(i++, r.sourceTopic());
                ps.setObject(i++, r.sourcePartition(), Types.INTEGER);
                ps.setObject(i++, r.sourceOffset(), Types.BIGINT);
                ps.setObject(i++, r.loadedAt().atOffset(ZoneOffset.UTC));
                if (withCurrent) {
                    ps.setBoolean(i, r.current());
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** An open version's valid_to as the entity writes it: NULL, or infinity (pgjdbc writes {@link OffsetDateTime#MAX} so). */
    private OffsetDateTime openEnd() {
        return e.validToCurrent() == ValidToCurrent.INFINITY ? OffsetDateTime.MAX : null;
    }

    private String hash(Map<String, Object> attributes) {
        List<ColumnType> types = e.tracked().stream().map(e::type).toList();
        List<Object> values = e.tracked().stream().map(attributes::get).collect(Collectors.toList());
        return RecordHash.hex(RecordHash.ofValues(types, values));
    }

    static Map<String, Object> zip(List<String> names, List<?> values) {
        if (names.size() != values.size()) {
            throw new IllegalArgumentException(names + " vs " + values);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            m.put(names.get(i), values.get(i));
        }
        return m;
    }

    /** {@code List.of} that allows nulls. */
    static List<Object> values(Object... v) {
        return Arrays.asList(v);
    }
}
