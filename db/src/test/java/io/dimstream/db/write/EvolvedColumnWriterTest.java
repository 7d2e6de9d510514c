package io.dimstream.db.write;

import static io.dimstream.db.write.Fixtures.h;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import java.sql.SQLException;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A tracked column added in the middle of a key's history ({@link EvolvedColumns#add}): versions
 * written before keep their rows and hashes, a key whose new column stays NULL gets no version, a
 * key with a value gets one at that event, and a late event before the column existed lands as
 * any late event. A replay of the whole feed into a table made with the extended spec (a shadow
 * rebuild) gives the same rows.
 */
class EvolvedColumnWriterTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    @Test
    void aColumnAddedMidHistoryMakesVersionsOnlyWhereItHasAValue() throws SQLException {
        String table = Fixtures.uniqueTable("people");
        EntitySpec config = Fixtures.people(table, table, Optional.empty());
        EntityTables.ensure(ds, config);
        List<Event> before = List.of(up(1, 1, "P1", "Ann", "Oslo", 1L, absent()), up(2, 1, "P2", "Bob", "Rome", 1L, absent()),
                up(3, 1, "P3", "Cid", "Bern", 1L, absent()));
        writer.apply(config, before);
        List<ExpectedRow> rowsBefore = EntityTableReader.rows(ds, config);

        EntitySpec evolved = Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, config,
                List.of(new EvolvedColumns.NewColumn("nickname", ColumnType.TEXT, true, "people-0@4"))));
        assertThat(evolved.tracked()).isEqualTo(List.of("name", "city", "nickname"));
        assertThat(evolved.evolved()).containsExactly("nickname");
        // nothing was rewritten by adding the column: the same rows, the same hashes, nickname NULL
        assertThat(EntityTableReader.rows(ds, evolved)).isEqualTo(rowsBefore.stream().map(r -> withNickname(r, null)).toList());

        List<Event> after = List.of(
                up(4, 2, "P1", "Ann", "Oslo", 2L, "Annie"),     // a value: a version at hour 2
                up(5, 2, "P2", "Bob", "Rome", 2L, null),        // NULL: the same hash, type-1 overwritten in place
                up(6, 3, "P3", "Cid", "Bern", 3L, absent()),    // a record without the field: NULL likewise
                up(7, 3, "P1", "Ann", "Oslo", 3L, "Annie"),     // the same value again: no version
                up(8, 4, "P1", "Ann", "Oslo", 4L, null),        // the value removed: a version
                up(9, 0, "P2", "Bob", "Pisa", 0L, absent()));   // late, before the column existed
        writer.apply(evolved, after);

        List<ExpectedRow> expected = List.of(
                row("P1", "Ann", "Oslo", null, 1L, 1, 2),
                row("P1", "Ann", "Oslo", "Annie", 3L, 2, 4),
                row("P1", "Ann", "Oslo", null, 4L, 4, null),
                row("P2", "Bob", "Pisa", null, 0L, 0, 1),
                row("P2", "Bob", "Rome", null, 2L, 1, null),
                row("P3", "Cid", "Bern", null, 3L, 1, null));
        assertThat(EntityTableReader.rows(ds, evolved)).isEqualTo(expected);
        // transaction time follows the added column: the two-argument as_of was made again with it (a stale
        // one would fail with a return type mismatch), and known now it is the one-argument function
        for (int hour = 0; hour <= 4; hour++) {
            assertThat(EntityTableReader.query(ds, evolved, Sql.table(evolved.asOfFunction()) + "(?, now())", h(hour).atOffset(ZoneOffset.UTC)))
                    .isEqualTo(EntityTableReader.query(ds, evolved, Sql.table(evolved.asOfFunction()) + "(?)", h(hour).atOffset(ZoneOffset.UTC)));
        }
        // the hash of a version without a nickname is the one the config's columns alone give
        assertThat(expected.get(0).hashHex()).isEqualTo(rowsBefore.get(0).hashHex());

        // a replay of the whole feed into a table made with the extended spec gives the same table
        String shadowName = Fixtures.uniqueTable("people_shadow");
        EntitySpec shadow = evolved.withTable(shadowName);
        EntityTables.ensure(ds, shadow);
        List<Event> all = new ArrayList<>(before);
        all.addAll(after);
        writer.apply(shadow, all);
        assertThat(EntityTableReader.rows(ds, shadow)).isEqualTo(expected);
    }

    /** Marks a field the record does not carry (the source did not have the column yet). */
    private static Object absent() {
        return ABSENT;
    }

    private static final Object ABSENT = new Object();

    private static Event up(long seq, int hour, String id, String name, String city, Long lastLogin, Object nickname) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("name", name);
        data.put("city", city);
        data.put("last_login", lastLogin);
        if (nickname != ABSENT) {
            data.put("nickname", nickname);
        }
        return Event.upsert(h(hour), data, seq, Source.kafka("people", 0, seq));
    }

    private static ExpectedRow row(String id, String name, String city, String nickname, Long lastLogin, int fromHour, Integer toHour) {
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("name", name);
        attrs.put("city", city);
        attrs.put("nickname", nickname);
        attrs.put("last_login", lastLogin);
        List<String> canonical = new ArrayList<>(Arrays.asList(name, city));
        // the rule of RecordHash: the evolved column follows with a marker, its name and value, only when not NULL
        String hash = nickname == null ? RecordHash.hex(RecordHash.of(canonical))
                : RecordHash.hex(RecordHash.of(Arrays.asList(name, city, nickname), List.of("nickname")));
        return new ExpectedRow(Map.of("id", id), attrs, h(fromHour), toHour == null ? null : h(toHour), toHour == null, false, hash);
    }

    private static ExpectedRow withNickname(ExpectedRow r, String nickname) {
        Map<String, Object> attrs = new LinkedHashMap<>(r.attrs());
        attrs.put("nickname", nickname);
        return new ExpectedRow(r.key(), attrs, r.validFrom(), r.validTo(), r.current(), r.deleted(), r.hashHex());
    }
}
