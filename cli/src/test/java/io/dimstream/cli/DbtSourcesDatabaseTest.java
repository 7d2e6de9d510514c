package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.schema.ConnectorTables;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.secrets.Secrets;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code dimstream dbt-sources} against a real PostgreSQL: the columns the sink added and widened
 * while running (through {@link EntityShapes#evolve}, the path a sink batch takes) are listed, each
 * in its entity's column order with its type now and its origin, in a file compared whole, naming
 * exactly the columns each table and view has in PostgreSQL's catalog, and valid for dbt's JSON
 * schemas (when they are there, {@link DbtJsonSchema}); a database dimstream never ran in lists the config's columns and
 * says so. Each test has a database of its own, so no other test's entities show.
 */
class DbtSourcesDatabaseTest {

    /** Set -Ddimstream.dbt-sources.write=true to rewrite the expected file from the output (then review the diff). */
    private static final Path EXPECTED = Path.of("src/test/resources/dbt/sources-evolved-expected.yml");

    @TempDir
    Path dir;

    /** {@link DbtSourcesCommandTest#CONFIG} on {@code url}, both entities adding the columns their source starts sending. */
    private Path config(String url) throws Exception {
        String config = DbtSourcesCommandTest.CONFIG
                .replace("postgres: {url: \"jdbc:postgresql://db:5432/dim\", user: dim, password: s3cret}", "postgres: {url: \"" + url + "\"}")
                .replace("    type1: [last_login]\n", "    type1: [last_login]\n    schema-evolution: lenient\n    new-columns: tracked\n")
                .replace("    tracked: [amount]\n", "    tracked: [amount]\n    schema-evolution: lenient\n    new-columns: type1\n");
        return Files.writeString(dir.resolve("c.yml"), config);
    }

    private static DataSource dataSource(String url) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        return ds;
    }

    @Test
    void listsTheColumnsAddedAndWidenedWhileRunning() throws Exception {
        String url = TestPostgres.newDatabase();
        DataSource ds = dataSource(url);
        Path file = config(url);
        DimstreamConfig cfg = CommandSupport.loadConfig(file);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA mart");
        }
        List<EntitySpec> specs = cfg.entities().stream().map(EntityConfig::toEntitySpec).toList();
        for (EntitySpec e : specs) {
            EntityTables.ensure(ds, e);
        }
        EntityShapes shapes = new EntityShapes(ds, specs, Set.of("price"));
        // three sink batches: customer's source sends segment and a longer email, then tier; price's sends promo
        evolve(ds, shapes, "customer", List.of(new EvolvedColumns.NewColumn("segment", ColumnType.TEXT, true, "crm.customers-0@17")),
                List.of(new EvolvedColumns.Widening("email", TypeWidening.ColumnDef.of(new TypeModifier.Length(400)), "crm.customers-0@17")));
        evolve(ds, shapes, "customer", List.of(new EvolvedColumns.NewColumn("tier", ColumnType.INTEGER, true, "crm.customers-1@3")), List.of());
        evolve(ds, shapes, "price", List.of(new EvolvedColumns.NewColumn("promo", ColumnType.BOOLEAN, false, "shop.prices-2@9")), List.of());
        Map<String, String> instants = instants(ds);

        CliRun run = CliRun.of("dbt-sources", "--config", file.toString());

        if (Boolean.getBoolean("dimstream.dbt-sources.write")) {
            String template = run.out();
            for (Map.Entry<String, String> i : instants.entrySet()) {
                template = template.replace(i.getValue(), i.getKey());
            }
            Files.writeString(EXPECTED, template);
        }
        String expected = Files.readString(EXPECTED, StandardCharsets.UTF_8);
        for (Map.Entry<String, String> i : instants.entrySet()) {
            expected = expected.replace(i.getKey(), i.getValue());
        }
        assertThat(run).isEqualTo(new CliRun(0, expected, ""));
        assertThat(listed(run.out())).isEqualTo(inDatabase(ds));
        DbtJsonSchema.directory().ifPresent(schemas -> assertThat(DbtJsonSchema.errors(schemas, run.out())).isEqualTo(DbtJsonSchema.none()));
    }

    /** Per relation ({@code schema.table}) of the file, the names of the columns it lists, sorted. */
    private static Map<String, List<String>> listed(String yaml) throws Exception {
        Map<String, List<String>> out = new TreeMap<>();
        for (JsonNode source : new YAMLMapper().readTree(yaml).get("sources")) {
            for (JsonNode table : source.get("tables")) {
                List<String> names = new ArrayList<>();
                table.get("columns").forEach(c -> names.add(c.get("name").asText()));
                out.put(source.get("schema").asText() + "." + table.get("name").asText(), names.stream().sorted().toList());
            }
        }
        return out;
    }

    /** Per table and view of the entities in the database, the names of its columns, sorted. */
    private static Map<String, List<String>> inDatabase(DataSource ds) throws Exception {
        Map<String, List<String>> out = new TreeMap<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT table_schema || '.' || table_name, column_name FROM information_schema.columns WHERE table_schema IN ('public', 'mart') "
                        + "AND table_name IN ('dim_customer', 'dim_customer_current', 'dim_price', 'dim_price_current') ORDER BY 1, 2")) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString(1), t -> new ArrayList<>()).add(rs.getString(2));
            }
        }
        return out;
    }

    private static void evolve(DataSource ds, EntityShapes shapes, String entity, List<EvolvedColumns.NewColumn> add,
                               List<EvolvedColumns.Widening> widen) throws Exception {
        EntitySpec applied = Transactions.inTransaction(ds, c -> shapes.evolve(c, shapes.current(entity), add, widen));
        shapes.committed(applied);
    }

    /** The catalog's instants, each under the placeholder the expected file has for it ({@code {customer.segment.added_at}}). */
    private static Map<String, String> instants(DataSource ds) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        for (String entity : List.of("customer", "price")) {
            for (EvolvedColumns.Column col : EvolvedColumns.list(ds, entity)) {
                if (col.origin() == EvolvedColumns.Origin.EVOLUTION) {
                    out.put("{" + entity + "." + col.column() + ".added_at}", col.addedAt().toString());
                }
                col.widenedAt().ifPresent(at -> out.put("{" + entity + "." + col.column() + ".widened_at}", at.toString()));
            }
        }
        return out;
    }

    @Test
    void aDatabaseDimstreamNeverRanInListsTheConfigsColumnsAndSaysSo() throws Exception {
        String url = TestPostgres.newDatabase();
        try (Connection c = dataSource(url).getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA dimstream CASCADE");
        }

        CliRun run = CliRun.of("dbt-sources", "--config", config(url).toString());

        assertThat(run).isEqualTo(new CliRun(0, Files.readString(Path.of("src/test/resources/dbt/sources-expected.yml"), StandardCharsets.UTF_8)
                .replace("# Columns: the config's only (--offline): columns added while running are not listed.\n",
                        "# Columns: the config's (the database had no dimstream.entity_columns: none were added while running).\n"),
                "dimstream dbt-sources: the database at " + Secrets.mask(url)
                        + " has no dimstream.entity_columns (dimstream has not run there), so no column was added while running: "
                        + "listing the config's columns\n"));
    }

    @Test
    void aTableAConnectorFoundIsListedAsTheSameEntityDeclaredByHandWouldBe() throws Exception {
        String url = TestPostgres.newDatabase();
        DataSource ds = dataSource(url);
        String head = "kafka: {bootstrap-servers: \"broker:9092\"}\npostgres: {url: \"" + url + "\"}\n";
        Path byConnector = Files.writeString(dir.resolve("connector.yml"), head + """
                connectors:
                  - name: shop
                    topic-prefix: shop
                    entity: {except: [updated_at]}
                """);
        Path byHand = Files.writeString(dir.resolve("by-hand.yml"), head + """
                entities:
                  - name: items
                    topic: shop.public.items
                    format: debezium-json
                    table: items_history
                    key: [sku]
                    tracked: "*"
                    except: [updated_at]
                    columns: {sku: text, title: text, price: numeric, in_stock: boolean}
                """);
        Map<String, String> columns = new LinkedHashMap<>();
        columns.put("sku", "text");
        columns.put("title", "text");
        columns.put("price", "numeric");
        columns.put("in_stock", "boolean");
        columns.put("updated_at", "timestamp with time zone");
        // what run records when it finds the table behind the connector
        ConnectorTables.record(ds, new ConnectorTables.Found("shop", "shop.public.items", "public", "items", List.of("sku"), columns));
        EntityTables.ensure(ds, CommandSupport.loadConfig(byHand).entity("items").toEntitySpec());

        CliRun found = CliRun.of("dbt-sources", "--config", byConnector.toString());
        CliRun declared = CliRun.of("dbt-sources", "--config", byHand.toString());

        assertThat(declared.exitCode()).isZero();
        assertThat(found).isEqualTo(declared);
        // the found columns but updated_at (except:), and the system columns
        List<String> listedColumns = List.of("end_known_from", "event_seq", "in_stock", "is_current", "is_deleted", "known_from", "loaded_at",
                "price", "record_hash",
                "sku", "source_offset", "source_partition", "source_topic", "surrogate_key", "title", "valid_from", "valid_to");
        assertThat(listed(found.out())).isEqualTo(Map.of("public.items_history", listedColumns,
                "public.items_history_current", listedColumns));
    }

    @Test
    void aConnectorsConfigOnADatabaseDimstreamNeverRanNamesTheDeclaredEntitiesOnlyAndSaysSo() throws Exception {
        String url = TestPostgres.newDatabase();
        try (Connection c = dataSource(url).getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA dimstream CASCADE");
        }
        Path byHand = config(url);
        Path withConnector = Files.writeString(dir.resolve("with-connector.yml"), Files.readString(byHand)
                + "connectors: [{name: shop, topic-prefix: shop}]\n");

        CliRun declared = CliRun.of("dbt-sources", "--config", byHand.toString());
        CliRun run = CliRun.of("dbt-sources", "--config", withConnector.toString());

        // nothing migrated, nothing made: the same file as without the connector, and one line more
        assertThat(run).isEqualTo(new CliRun(0, declared.out(), "dimstream has not run on this database yet (no "
                + "dimstream.connector_tables); only the entities declared by hand are known\n" + declared.err()));
        // offline, the same entities and a line saying what is left out
        CliRun offline = CliRun.of("dbt-sources", "--config", withConnector.toString(), "--offline");
        assertThat(offline).isEqualTo(new CliRun(0, CliRun.of("dbt-sources", "--config", byHand.toString(), "--offline").out(),
                "dimstream dbt-sources: --offline: the tables connector shop found are kept in the database "
                        + "(dimstream.connector_tables) and not listed; only the entities declared by hand are\n"));
        try (Connection c = dataSource(url).getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_namespace WHERE nspname = 'dimstream'")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
    }
}
