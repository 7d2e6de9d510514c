package io.dimstream.app.testing;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.testing.TestPostgres;
import java.util.Map;

/**
 * The demo's customer entity (native JSON) as the ITs configure it: the one place its YAML is
 * written, so a test says only what it changes (name, topic, table, horizon, extra entity keys).
 */
public final class CustomerConfigs {

    private CustomerConfigs() {
    }

    /**
     * @param entityKeys further keys of the entity, one YAML line each (e.g. {@code "new-columns: tracked"})
     */
    public static DimstreamConfig config(String bootstrap, String entity, String topic, String table, String horizon, String... entityKeys) {
        StringBuilder extra = new StringBuilder();
        for (String k : entityKeys) {
            extra.append("    ").append(k).append('\n');
        }
        return DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                entities:
                  - name: %s
                    topic: %s
                    format: json
                    table: %s
                    key: [customer_id]
                    tracked: [email, full_name, country, city, loyalty_tier]
                    type1: [last_login]
                    lateness-horizon: %s
                    columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                              loyalty_tier: text, last_login: bigint}
                """.formatted(bootstrap, TestPostgres.jdbcUrl(), entity, topic, table, horizon) + extra, "test config", Map.of());
    }
}
