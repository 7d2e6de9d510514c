package io.dimstream.config.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One item of {@code connectors:}: every table a change-data-capture connector captures, each an
 * entity of its own, typed from its records' schema (docs/formats.md, "A whole database from one
 * connector"). The tables themselves are found while running ({@code io.dimstream.app.connect});
 * this is what the config says about them.
 *
 * @param name              the connector's name in dimstream (logs, metrics, the catalog)
 * @param topicPrefix       Debezium's {@code topic.prefix} when the config gives it (else a pattern)
 * @param topics            the topics it covers: {@code <prefix>.<schema>.<table>}, or the pattern given
 * @param include           patterns over {@code <schema>.<table>}, matched whole: only these (none: all)
 * @param exclude           patterns over {@code <schema>.<table>}, matched whole: never these
 * @param format            {@code debezium-json} or {@code debezium-avro}
 * @param entityName        the entity name template: {@code {schema}} and {@code {table}} replaced
 * @param tableName         the history table template, the same placeholders
 * @param entityOptions     entity keys every table gets, as the YAML gives them
 * @param tables            entity keys for the tables a pattern matches, applied in order over {@code entityOptions}
 * @param discoveryInterval how often the running service looks for new tables
 */
public record ConnectorConfig(String name, Optional<String> topicPrefix, Pattern topics, List<Pattern> include, List<Pattern> exclude, EventFormat format,
                              String entityName, String tableName, Map<String, Object> entityOptions, List<TableOptions> tables,
                              Duration discoveryInterval) {

    /** The default entity name template. */
    public static final String DEFAULT_ENTITY_NAME = "{table}";
    /** The default history table template. */
    public static final String DEFAULT_TABLE_NAME = "{table}_history";

    /** Entity keys for the tables whose {@code <schema>.<table>} matches {@code match} whole. */
    public record TableOptions(Pattern match, Map<String, Object> options) {
        public TableOptions {
            Objects.requireNonNull(match, "match");
            options = Map.copyOf(options);
        }
    }

    /** A captured table as its topic names it. */
    public record SourceTable(String schema, String table) {
        /** {@code <schema>.<table>}, what {@code include}, {@code exclude} and {@code tables[].match} match. */
        public String qualified() {
            return schema.isEmpty() ? table : schema + "." + table;
        }
    }

    public ConnectorConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(topicPrefix, "topicPrefix");
        Objects.requireNonNull(topics, "topics");
        include = List.copyOf(include);
        exclude = List.copyOf(exclude);
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(entityName, "entityName");
        Objects.requireNonNull(tableName, "tableName");
        entityOptions = Map.copyOf(entityOptions);
        tables = List.copyOf(tables);
        Objects.requireNonNull(discoveryInterval, "discoveryInterval");
    }

    /** The pattern of {@code topic-prefix: P}: {@code P.<schema>.<table>}. */
    public static Pattern prefixPattern(String prefix) {
        return Pattern.compile(Pattern.quote(prefix) + "\\.(?<schema>[^.]+)\\.(?<table>[^.]+)");
    }

    /**
     * The table a topic carries, when this connector covers the topic: the pattern matches it whole
     * and the table is included and not excluded. The pattern's groups {@code schema} and
     * {@code table} name it; a pattern without them takes the topic's last part as the table and
     * the one before as the schema.
     */
    public Optional<SourceTable> tableOf(String topic) {
        Matcher m = topics.matcher(topic);
        if (!m.matches()) {
            return Optional.empty();
        }
        String[] parts = topic.split("\\.");
        String table = group(m, "table").orElse(parts[parts.length - 1]);
        String schema = group(m, "schema").orElse(parts.length > 1 ? parts[parts.length - 2] : "");
        SourceTable t = new SourceTable(schema, table);
        String q = t.qualified();
        if (!include.isEmpty() && include.stream().noneMatch(p -> p.matcher(q).matches())) {
            return Optional.empty();
        }
        if (exclude.stream().anyMatch(p -> p.matcher(q).matches())) {
            return Optional.empty();
        }
        return Optional.of(t);
    }

    private static Optional<String> group(Matcher m, String name) {
        try {
            return Optional.ofNullable(m.group(name));
        } catch (IllegalArgumentException noSuchGroup) {
            return Optional.empty();
        }
    }

    /** {@code template} with {@code {schema}} and {@code {table}} replaced by the table's. */
    public static String fill(String template, SourceTable t) {
        return template.replace("{schema}", t.schema()).replace("{table}", t.table());
    }
}
