package io.dimstream.admin.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.schema.ConnectorTables;
import io.dimstream.db.schema.Migrations;
import io.dimstream.db.testing.TestPostgres;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The admin knows the tables a connector found as entities, those found before it started and
 * those found while it runs (a page for one opens at once, the list follows within seconds),
 * with the spec a hand-declared entity of the same columns has.
 */
class EntityCatalogConnectorsTest {

    @Test
    void aTableFoundBeforeOrWhileTheAdminRunsIsAnEntityOfIt() throws Exception {
        String url = TestPostgres.newDatabase();
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        Migrations.migrate(ds);
        String head = "kafka: {bootstrap-servers: \"broker:9092\"}\npostgres: {url: \"" + url + "\"}\n";
        DimstreamConfig config = DimstreamConfig.parse(head + "connectors: [{name: shop, topic-prefix: shop}]\n", "test", Map.of());
        record(ds, "customers", "id");

        EntityCatalog catalog = new EntityCatalog(config, ds);
        assertThat(catalog.names()).isEqualTo(List.of("customers"));
        assertThat(catalog.topic("customers")).isEqualTo("shop.public.customers");
        assertThatThrownBy(() -> catalog.spec("items")).isInstanceOf(NotFound.class)
                .hasMessage("no entity named \"items\" (configured: customers)");

        record(ds, "items", "sku");
        DimstreamConfig byHand = DimstreamConfig.parse(head + """
                entities:
                  - {name: items, topic: shop.public.items, format: debezium-json, table: items_history, key: [sku], tracked: "*",
                     columns: {sku: text, title: text}}
                """, "test", Map.of());
        assertThat(catalog.configSpec("items")).isEqualTo(byHand.entity("items").toEntitySpec());
        assertThat(catalog.names()).isEqualTo(List.of("customers", "items"));
    }

    private static void record(DataSource ds, String table, String key) throws Exception {
        Map<String, String> columns = new LinkedHashMap<>();
        columns.put(key, "text");
        columns.put("title", "text");
        ConnectorTables.record(ds, new ConnectorTables.Found("shop", "shop." + "public." + table, "public", table, List.of(key), columns));
    }
}
