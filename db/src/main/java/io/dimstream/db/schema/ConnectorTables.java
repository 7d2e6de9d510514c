package io.dimstream.db.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The catalog of tables found behind a connector ({@code dimstream.connector_tables}, V013): one row
 * per connector and source topic, with the shape its first record's schema gave. Written once per topic (a topic
 * found again keeps its first shape: later columns are {@link EvolvedColumns}' like any entity's),
 * read at every start and by every command that names entities, in the order the tables were found
 * (so a table found later never changes the order, and with it the Kafka Streams sub-topology
 * numbers, of those found before).
 */
public final class ConnectorTables {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConnectorTables() {
    }

    /**
     * A table found behind a connector.
     *
     * @param connector the {@code connectors[].name} that found it
     * @param topic     its Kafka topic
     * @param schema    the source schema (Debezium's {@code source.schema}, or the topic's second-to-last part)
     * @param table     the source table
     * @param key       the record key's fields: the business key
     * @param columns   every field of the row image and its PostgreSQL type as the config writes it
     *                  ({@code text}, {@code numeric}, {@code timestamptz}), in the record's order
     */
    public record Found(String connector, String topic, String schema, String table, List<String> key, Map<String, String> columns) {
        public Found {
            Objects.requireNonNull(connector, "connector");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(schema, "schema");
            Objects.requireNonNull(table, "table");
            key = List.copyOf(key);
            columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
            if (key.isEmpty()) {
                throw new IllegalArgumentException("topic " + topic + ": a found table needs a key");
            }
            for (String k : key) {
                if (!columns.containsKey(k)) {
                    throw new IllegalArgumentException("topic " + topic + ": key field \"" + k + "\" is not a field of the row image "
                            + columns.keySet());
                }
            }
        }
    }

    /** Every table found so far, in the order found. */
    public static List<Found> all(DataSource ds) throws SQLException {
        List<Found> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT connector, topic, source_schema, source_table, key_columns::text, "
                     + "columns::text FROM " + Migrations.SCHEMA + ".connector_tables ORDER BY seq");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                List<String> key = new ArrayList<>();
                JsonNode keyJson = parse(rs.getString(5));
                keyJson.forEach(k -> key.add(k.asText()));
                Map<String, String> columns = new LinkedHashMap<>();
                for (JsonNode col : parse(rs.getString(6))) {
                    columns.put(col.path("name").asText(), col.path("type").asText());
                }
                out.add(new Found(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), key, columns));
            }
        }
        return out;
    }

    /**
     * Records a table found; a topic the connector recorded before keeps its row (two instances
     * finding one table at once agree on the first).
     *
     * @return whether this call recorded it
     */
    public static boolean record(DataSource ds, Found f) throws SQLException {
        ArrayNode key = JSON.createArrayNode();
        f.key().forEach(key::add);
        ArrayNode columns = JSON.createArrayNode();
        f.columns().forEach((name, type) -> columns.addObject().put("name", name).put("type", type));
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + Migrations.SCHEMA + ".connector_tables "
                     + "(topic, connector, source_schema, source_table, key_columns, columns) VALUES (?, ?, ?, ?, ?::jsonb, ?::jsonb) "
                     + "ON CONFLICT (connector, topic) DO NOTHING")) {
            ps.setString(1, f.topic());
            ps.setString(2, f.connector());
            ps.setString(3, f.schema());
            ps.setString(4, f.table());
            ps.setString(5, key.toString());
            ps.setString(6, columns.toString());
            return ps.executeUpdate() == 1;
        }
    }

    private static JsonNode parse(String json) throws SQLException {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new SQLException("dimstream.connector_tables holds a value that is not JSON: " + e.getOriginalMessage(), e);
        }
    }
}
