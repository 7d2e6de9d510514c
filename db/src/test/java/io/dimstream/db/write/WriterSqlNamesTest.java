package io.dimstream.db.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link EntitySpec#WORK_COLUMNS} is complete: every other bare name in the writer's SQL (keywords,
 * functions, aliases, CTE names and any work column someone adds without listing it) is used as
 * an entity column, key, tracked, type-1 and renamed system column in turn, and a scenario that
 * runs every statement of the writer must give the reference model's table. A work column added to
 * {@link WriterSql} but not to the list makes a column twice or an ambiguous reference here.
 */
class WriterSqlNamesTest {

    private static final Instant BASE = Instant.parse("2025-01-01T00:00:00Z");
    /** At most 31 key columns: the primary key (key, valid_from) may have 32. */
    private static final int KEY_CHUNK = 30;

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);
    private final MemoryPruner pruner = new MemoryPruner(ds, 2); // keys A to E in three chunks: every prune statement runs with every name

    /** The bare (unquoted) lower-case words of every statement {@link WriterSql} generates for {@code spec}. */
    static TreeSet<String> bareWords(EntitySpec spec) {
        WriterSql sql = new WriterSql(spec);
        TreeSet<String> words = new TreeSet<>();
        Pattern word = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
        for (Field f : WriterSql.class.getDeclaredFields()) {
            if (f.getType() != String.class || Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            String text;
            try {
                text = (String) f.get(sql);
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
            if (text == null) {
                continue;
            }
            // quoted identifiers and string literals are not bare names
            Matcher m = word.matcher(text.replaceAll("\"(?:[^\"]|\"\")*\"", " ").replaceAll("'(?:[^']|'')*'", " "));
            while (m.find()) {
                words.add(m.group().toLowerCase(Locale.ROOT));
            }
        }
        return words;
    }

    /** The words to try as column names: all but those the entity check refuses (system, memory and work columns). */
    static List<String> candidates() {
        EntitySpec probe = spec("probe", List.of("probe_key"), List.of("probe_tracked"), List.of("probe_type1"), SystemColumns.DEFAULTS);
        TreeSet<String> words = bareWords(probe);
        words.removeAll(EntitySpec.WORK_COLUMNS);
        words.removeAll(EntitySpec.MEMORY_COLUMNS);
        words.removeAll(SystemColumns.DEFAULTS.all());
        return new ArrayList<>(words);
    }

    @Test
    void theWordsOfTheWritersSqlIncludeItsWorkColumnsSoTheCandidatesAreTheRest() {
        TreeSet<String> words = bareWords(spec("probe", List.of("probe_key"), List.of("probe_tracked"), List.of("probe_type1"),
                SystemColumns.DEFAULTS));
        assertThat(words).containsAll(EntitySpec.WORK_COLUMNS);
        assertThat(candidates()).contains("select", "x", "c", "lasts", "numbered", "jsonb_build_object", "coalesce").hasSizeGreaterThan(80);
    }

    @Test
    void everyOtherWordWorksAsATrackedColumn() throws SQLException {
        runScenario(spec(table(), List.of("probe_key"), candidates(), List.of("probe_type1"), SystemColumns.DEFAULTS));
    }

    @Test
    void everyOtherWordWorksAsATypeOneColumn() throws SQLException {
        runScenario(spec(table(), List.of("probe_key"), List.of("probe_tracked"), candidates(), SystemColumns.DEFAULTS));
    }

    @Test
    void everyOtherWordWorksAsAKeyColumn() throws SQLException {
        List<String> all = candidates();
        for (int i = 0; i < all.size(); i += KEY_CHUNK) {
            runScenario(spec(table(), all.subList(i, Math.min(all.size(), i + KEY_CHUNK)), List.of("probe_tracked"), List.of("probe_type1"),
                    SystemColumns.DEFAULTS));
        }
    }

    @Test
    void everyOtherWordWorksAsARenamedSystemColumn() throws SQLException {
        List<String> all = candidates();
        for (int i = 0; i < all.size(); i += 10) {
            List<String> n = new ArrayList<>(all.subList(i, Math.min(all.size(), i + 10)));
            List<String> defaults = SystemColumns.DEFAULTS.all();
            while (n.size() < 10) {
                n.add(defaults.get(n.size()));
            }
            SystemColumns sc = new SystemColumns(n.get(0), n.get(1), n.get(2), n.get(3), n.get(4), n.get(5), n.get(6), n.get(7), n.get(8), n.get(9));
            runScenario(spec(table(), List.of("probe_key"), List.of("probe_tracked"), List.of("probe_type1"), sc));
        }
    }

    /**
     * Batches that run every statement of the writer: new keys, a key with two events (the region),
     * a fast change, a fast delete of a live and of an unknown key, a type-1 overwrite, a late event,
     * a duplicate, a quarantine beyond the horizon, a prune and a batch after it (the pruned classify).
     */
    private void runScenario(EntitySpec spec) throws SQLException {
        EntityTables.ensure(ds, spec);
        List<List<Event>> batches = List.of(
                List.of(up(spec, 1, 5, "A", "a0", "x"), up(spec, 2, 10, "A", "a1", "x"), up(spec, 3, 10, "B", "b1", "x"),
                        del(spec, 4, 11, "B"), up(spec, 5, 10, "D", "d1", "x"), up(spec, 6, 10, "E", "e1", "x")),
                List.of(up(spec, 7, 12, "A", "a2", "x"), del(spec, 8, 10, "C"), up(spec, 9, 12, "D", "d1", "y"), del(spec, 10, 12, "E")),
                List.of(up(spec, 11, 11, "A", "a3", "x")),
                List.of(up(spec, 11, 11, "A", "a3", "x"), up(spec, 12, 9, "A", "late", "x")),
                List.of(up(spec, 13, 13, "A", "a4", "x"), up(spec, 14, 5, "A", "z", "x")));
        List<ApplyResult> results = new ArrayList<>();
        List<Event> applied = new ArrayList<>();
        for (int i = 0; i < batches.size(); i++) {
            if (i == 4) {
                assertThat(pruner.prune(spec)).as("events pruned").isZero(); // marks A's anchor at 05:00
            }
            results.add(writer.apply(spec, batches.get(i)));
            batches.get(i).stream().filter(e -> !e.data().containsValue("late") && !e.data().containsValue("z")).forEach(applied::add);
        }

        assertThat(results).as(spec.toString()).isEqualTo(List.of(
                ApplyResult.builder().received(6).newKeys(4).changed(1).deleted(1).rowsInserted(6).build(),
                ApplyResult.builder().received(4).changed(1).deleted(2).unchanged(1).rowsInserted(2).rowsUpdated(3).build(),
                ApplyResult.builder().received(1).late(1).rowsInserted(1).rowsUpdated(1).build(),
                ApplyResult.builder().received(2).duplicates(1).quarantined(1).build(),
                ApplyResult.builder().received(2).changed(1).quarantined(1).rowsInserted(1).rowsUpdated(1).build()));
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(applied));
    }

    private static int tables;

    private static String table() {
        return "wsn_" + (++tables);
    }

    static EntitySpec spec(String table, List<String> key, List<String> tracked, List<String> type1, SystemColumns sc) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        key.forEach(c -> cols.put(c, ColumnType.TEXT));
        tracked.forEach(c -> cols.put(c, ColumnType.TEXT));
        type1.forEach(c -> cols.put(c, ColumnType.TEXT));
        return EntitySpec.builder()
                .name(table)
                .table(table)
                .key(key)
                .tracked(tracked)
                .type1(type1)
                .columns(cols)
                .latenessHorizon(Optional.of(Duration.ofHours(2)))
                .system(sc)
                .build();
    }

    private static Event up(EntitySpec spec, long seq, int hour, String key, String tracked, String type1) {
        Map<String, Object> data = new LinkedHashMap<>();
        spec.key().forEach(k -> data.put(k, key));
        spec.tracked().forEach(t -> data.put(t, tracked));
        spec.type1().forEach(u -> data.put(u, type1));
        return Event.upsert(BASE.plus(Duration.ofHours(hour)), data, seq, Source.kafka("names", 0, seq));
    }

    private static Event del(EntitySpec spec, long seq, int hour, String key) {
        Map<String, Object> data = new LinkedHashMap<>();
        spec.key().forEach(k -> data.put(k, key));
        return Event.delete(BASE.plus(Duration.ofHours(hour)), data, seq, Source.kafka("names", 0, seq));
    }
}
