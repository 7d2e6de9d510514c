package io.dimstream.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.schema.ColumnOrigins;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A dbt {@code sources.yml} (version 2) for the entities ({@link #entities}), so that a dbt project
 * can {@code source()} them at once ({@code dimstream dbt-sources}, docs/querying.md "dbt").
 *
 * <p>One source per PostgreSQL schema of the entities' tables (an unqualified table is in
 * {@code public}), named as given ({@code dimstream} by default; {@code NAME_SCHEMA} when the
 * entities span several schemas, since a dbt source has one schema). Each entity gives two tables:
 * its history table and its {@code _current} view, with every column described in the order every
 * reader of the entity uses ({@link ColumnOrigins}: key, tracked, type-1, each the config's then
 * those added while running, then the system columns under their configured names), with its type
 * now (a widened one included); a column the catalog knows (added or widened while running) says
 * so. Freshness is in the layout dbt documents since 1.10 (dbt-core reads it from 1.10.3):
 * {@code freshness} and {@code loaded_at_field} under the table's {@code config:}, where the schema
 * of current dbt wants them. The tests are those dimstream's own constraints guarantee, written as dbt's built-in generic tests only ({@code unique},
 * {@code not_null}): a unique combination of columns is a {@code unique} test on an expression
 * ({@code row("a", "b")::text}) rather than {@code dbt_utils.unique_combination_of_columns}, so the
 * project needs no package.
 *
 * <p>The columns come from the config and a {@link Catalog} of the columns added and widened while
 * running ({@code dimstream.entity_columns}): {@link Catalog#read} over a connection, or
 * {@link Catalog#configOnly}. The YAML is written by Jackson's YAML module (the one the config is
 * read with), so quoting is always right; keys keep their insertion order.
 */
final class DbtSources {

    /** A dbt freshness period: {@code count} of {@code minute | hour | day}. */
    record Period(int count, String period) {
        private static final Pattern FORM = Pattern.compile("([1-9][0-9]{0,5})([mhd])");

        /** {@code 30m}, {@code 12h}, {@code 2d}. */
        static Period parse(String flag, String text) {
            Matcher m = FORM.matcher(text == null ? "" : text.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException(flag + ": expected a count and m, h or d (30m, 12h, 2d), got '" + text + "'");
            }
            String unit = switch (m.group(2)) {
                case "m" -> "minute";
                case "h" -> "hour";
                default -> "day";
            };
            return new Period(Integer.parseInt(m.group(1)), unit);
        }

        Map<String, Object> yaml() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("count", count);
            m.put("period", period);
            return m;
        }
    }

    /**
     * @param sourceName the source's name ({@code dimstream} by default)
     * @param warnAfter  freshness warn_after; null with errorAfter null: no freshness config
     * @param errorAfter freshness error_after
     */
    record Options(String sourceName, Period warnAfter, Period errorAfter) {
        static final String DEFAULT_NAME = "dimstream";
        static final Period DEFAULT_WARN = new Period(12, "hour");
        static final Period DEFAULT_ERROR = new Period(24, "hour");
    }

    /** The columns added and widened while running, per entity, and where they were read (a line of the file's header). */
    interface Catalog {

        /** Lists the config's columns only (reads nothing); {@code provenance} says why. */
        static Catalog configOnly(String provenance) {
            return new Catalog() {
                @Override
                public List<EvolvedColumns.Column> columns(String entity) {
                    return List.of();
                }

                @Override
                public String provenance() {
                    return provenance;
                }
            };
        }

        /** The entity's rows of {@code dimstream.entity_columns}, in catalog order. */
        List<EvolvedColumns.Column> columns(String entity) throws SQLException;

        /** Says in one sentence what the columns listed are. */
        String provenance();

        /** The catalog read over {@code c}, one query per entity. */
        static Catalog read(Connection c) {
            return new Catalog() {
                @Override
                public List<EvolvedColumns.Column> columns(String entity) throws SQLException {
                    return EvolvedColumns.list(c, entity);
                }

                @Override
                public String provenance() {
                    return "Columns: the config's and those added or widened while running, as dimstream.entity_columns had them.";
                }
            };
        }
    }

    /** One entity as described: its config (name, topic), its shape now (the catalog merged in) and its columns in reading order. */
    private record Described(EntityConfig config, EntitySpec shape, List<ColumnOrigins.Column> columns) {
    }

    /** What a system column is, for its description and tests. */
    private record SystemColumn(String description, List<Object> tests) {
    }

    private static final String DEFAULT_SCHEMA = "public";

    private DbtSources() {
    }

    /**
     * The entities dbt-sources describes, in the config's order: the one place their list comes
     * from, so that entities found another way (a connector's tables) join the output here.
     */
    static List<EntityConfig> entities(DimstreamConfig config) {
        return config.entities();
    }

    static String yaml(DimstreamConfig config, Catalog catalog, Options options) throws SQLException {
        Map<String, List<Described>> bySchema = new LinkedHashMap<>();
        for (EntityConfig e : entities(config)) {
            EntitySpec spec = e.toEntitySpec();
            List<EvolvedColumns.Column> rows = catalog.columns(spec.name());
            String schema = Sql.schemaOf(spec.table());
            bySchema.computeIfAbsent(schema == null ? DEFAULT_SCHEMA : schema, s -> new ArrayList<>())
                    .add(new Described(e, EvolvedColumns.merge(spec, rows), ColumnOrigins.of(spec, rows)));
        }
        List<Object> sources = new ArrayList<>();
        bySchema.forEach((schema, entities) -> {
            Map<String, Object> source = new LinkedHashMap<>();
            source.put("name", bySchema.size() == 1 ? options.sourceName() : options.sourceName() + "_" + schema);
            source.put("description", "SCD Type 2 history tables kept by dimstream from Kafka topics, and their current-row "
                    + "views (generated by dimstream dbt-sources)");
            source.put("schema", schema);
            List<Object> tables = new ArrayList<>();
            for (Described d : entities) {
                tables.add(history(d, options));
                tables.add(current(d, options));
            }
            source.put("tables", tables);
            sources.add(source);
        });
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", 2);
        doc.put("sources", sources);
        YAMLMapper mapper = YAMLMapper.builder()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
                .disable(YAMLGenerator.Feature.SPLIT_LINES)
                .build();
        try {
            return "# dbt sources for dimstream's entities, generated by `dimstream dbt-sources`: regenerate it after\n"
                    + "# changing the entities or when columns are added while running. Needs dbt 1.10.3 or later\n"
                    + "# (freshness and loaded_at_field under config:).\n"
                    + "# " + catalog.provenance() + "\n"
                    + mapper.writeValueAsString(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the dbt sources: " + e.getMessage(), e);
        }
    }

    private static Map<String, Object> history(Described d, Options options) {
        EntitySpec e = d.shape();
        SystemColumns sc = e.system();
        Map<String, Object> t = table(Sql.nameOf(e.table()), "Every version of each " + e.name() + " (topic " + d.config().topic()
                + "): one row per version, valid from " + sc.validFrom() + " (inclusive) to " + sc.validTo() + " (exclusive, " + openEnd(e)
                + " for the key's last version); deletes are rows with " + sc.isDeleted() + ". Unique on (" + String.join(", ", e.key()) + ", "
                + sc.validFrom() + "); at most one row per key with " + sc.validTo() + " " + openEnd(e) + "." + rangeJoin(e), sc, options);
        List<String> keyAndFrom = new ArrayList<>(e.key());
        keyAndFrom.add(sc.validFrom());
        t.put("data_tests", List.of(uniqueCombination(keyAndFrom)));
        t.put("columns", columns(d, false));
        return t;
    }

    private static Map<String, Object> current(Described d, Options options) {
        EntitySpec e = d.shape();
        SystemColumns sc = e.system();
        Map<String, Object> t = table(Sql.nameOf(e.currentView()), "The current version of each " + e.name()
                + " that is not deleted (a view of the history table WHERE " + sc.isCurrent() + "): one row per key.", sc, options);
        if (e.key().size() > 1) {
            t.put("data_tests", List.of(uniqueCombination(e.key())));
        }
        t.put("columns", columns(d, true));
        return t;
    }

    /** A table's name, description and config: freshness and loaded_at_field, where dbt 1.10 reads them. */
    private static Map<String, Object> table(String name, String description, SystemColumns sc, Options options) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("name", name);
        t.put("description", description);
        if (options.warnAfter() != null || options.errorAfter() != null) {
            Map<String, Object> freshness = new LinkedHashMap<>();
            if (options.warnAfter() != null) {
                freshness.put("warn_after", options.warnAfter().yaml());
            }
            if (options.errorAfter() != null) {
                freshness.put("error_after", options.errorAfter().yaml());
            }
            Map<String, Object> config = new LinkedHashMap<>();
            config.put("freshness", freshness);
            config.put("loaded_at_field", sc.loadedAt());
            t.put("config", config);
        }
        return t;
    }

    /**
     * A unique test over several columns with dbt's own {@code unique} test, on the text of the row
     * of them ({@code row("a", "b")::text}: PostgreSQL quotes a value holding a comma or a quote, so
     * two different combinations never give the same text).
     */
    private static Map<String, Object> uniqueCombination(List<String> columns) {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("column_name", "row(" + columns.stream().map(Sql::ident).collect(Collectors.joining(", ")) + ")::text");
        return Map.of("unique", args);
    }

    private static List<Object> columns(Described d, boolean current) {
        EntitySpec e = d.shape();
        Map<String, SystemColumn> system = systemColumns(e);
        boolean oneKey = e.key().size() == 1;
        List<Object> out = new ArrayList<>();
        for (ColumnOrigins.Column col : d.columns()) {
            String description;
            List<Object> tests = List.of();
            switch (col.role()) {
                case KEY -> {
                    description = oneKey ? "Business key of the " + e.name() : "Business key of the " + e.name() + ", part "
                            + (e.key().indexOf(col.name()) + 1) + " of " + e.key().size() + " (" + String.join(", ", e.key()) + ")";
                    tests = current && oneKey ? List.of("not_null", "unique") : List.of("not_null");
                }
                case TRACKED -> description = "Tracked attribute (SCD Type 2): a change of its value makes a new version";
                case TYPE1 -> description = "Type-1 attribute: not versioned; a change overwrites it in place instead of making "
                        + "a new version (each version holds the value of its own last event)";
                default -> {
                    SystemColumn s = system.get(col.name());
                    description = s.description();
                    tests = s.tests();
                }
            }
            out.add(column(col.name(), col.sqlType(), description + catalogNote(col), tests));
        }
        return out;
    }

    /** What the catalog says of a column, as sentences after its description: added while running, type widened; else nothing. */
    private static String catalogNote(ColumnOrigins.Column col) {
        StringBuilder b = new StringBuilder();
        if (col.origin() instanceof ColumnOrigins.AddedWhileRunning added) {
            b.append(". Added while running at ").append(added.at());
            if (added.firstSource() != null) {
                b.append(", first sent in ").append(added.firstSource());
            }
        }
        col.widened().ifPresent(w -> b.append(". Type widened while running from ").append(w.from()).append(" at ").append(w.at()));
        return b.isEmpty() ? "" : b.append('.').toString();
    }

    /** What an open version's valid_to holds, as the descriptions say it: {@code NULL} or {@code 'infinity'}. */
    private static String openEnd(EntitySpec e) {
        return e.validToCurrent() == ValidToCurrent.INFINITY ? "'infinity'" : "NULL";
    }

    /** With valid-to-current: infinity, the range join it allows and the dbt setting that writes the same. */
    private static String rangeJoin(EntitySpec e) {
        SystemColumns sc = e.system();
        return e.validToCurrent() != ValidToCurrent.INFINITY ? "" : " The version valid at t: " + sc.validFrom() + " <= t AND t < "
                + sc.validTo() + " (dimstream's valid-to-current: infinity, as dbt snapshots with dbt_valid_to_current: "
                + "\"'infinity'::timestamptz\").";
    }

    /** The system columns under their configured names. */
    private static Map<String, SystemColumn> systemColumns(EntitySpec e) {
        SystemColumns sc = e.system();
        boolean infinity = e.validToCurrent() == ValidToCurrent.INFINITY;
        Map<String, SystemColumn> m = new LinkedHashMap<>();
        m.put(sc.surrogateKey(), new SystemColumn("Surrogate key of the version: a deterministic 63-bit hash of entity, key and "
                + sc.validFrom() + " (the same after a replay or rebuild)", List.of("not_null", "unique")));
        m.put(sc.validFrom(), new SystemColumn("Start of the version's validity (inclusive): the event time of its first event",
                List.of("not_null")));
        m.put(sc.validTo(), new SystemColumn("End of the version's validity (exclusive): the next version's " + sc.validFrom()
                + "; " + openEnd(e) + " for the key's last version" + (infinity ? " (never NULL: as dbt_valid_to_current: "
                + "\"'infinity'::timestamptz\" in a dbt snapshot)" : ""), infinity ? List.of("not_null") : List.of()));
        m.put(sc.isCurrent(), new SystemColumn("Generated: " + (infinity ? sc.validTo() + " = 'infinity'" : sc.validTo() + " IS NULL")
                + " AND NOT " + sc.isDeleted() + " (the version valid now)", List.of("not_null")));
        m.put(sc.isDeleted(), new SystemColumn("True for a delete: the key did not exist from " + sc.validFrom()
                + "; the row carries the previous version's attributes and " + sc.recordHash(), List.of("not_null")));
        m.put(sc.recordHash(), new SystemColumn("SHA-256 over the tracked columns in configured order (docs/semantics.md); equal "
                + "hashes, equal tracked values", List.of("not_null")));
        m.put(sc.sourceTopic(), new SystemColumn("Lineage: Kafka topic of the version's first event", List.of()));
        m.put(sc.sourcePartition(), new SystemColumn("Lineage: Kafka partition of the version's first event", List.of()));
        m.put(sc.sourceOffset(), new SystemColumn("Lineage: Kafka offset of the version's first event", List.of()));
        m.put(sc.loadedAt(), new SystemColumn("Lineage: when dimstream wrote the version (the freshness field)", List.of("not_null")));
        m.put(sc.eventSeq(), new SystemColumn("Arrival order of the version's first event, for dimstream's own same-time "
                + "decisions; NULL on versions older than the key's prune point", List.of()));
        m.put(sc.knownFrom(), new SystemColumn("Transaction time: when dimstream came to believe this version as it is (NULL: "
                + "since before the table kept transaction time); earlier beliefs are in the _superseded table (docs/semantics.md)",
                List.of()));
        m.put(sc.endKnownFrom(), new SystemColumn("Transaction time: when this version's " + sc.validTo() + " became known; NULL "
                + "while it is open", List.of()));
        return m;
    }

    private static Map<String, Object> column(String name, String type, String description, List<Object> tests) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("name", name);
        c.put("data_type", type);
        c.put("description", description);
        if (!tests.isEmpty()) {
            c.put("data_tests", tests);
        }
        return c;
    }
}
