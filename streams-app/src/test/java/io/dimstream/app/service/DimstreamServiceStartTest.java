package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.config.DimstreamConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the service refuses before it starts anything (no broker, no database touched). */
class DimstreamServiceStartTest {

    @Test
    void aPoolTooSmallForTheSinksConnectionsIsRefusedNamingBothFields(@TempDir Path dir) {
        DimstreamConfig config = DimstreamConfig.parse("""
                kafka: {bootstrap-servers: "127.0.0.1:1"}
                postgres: {url: "jdbc:postgresql://127.0.0.1:1/none", pool-size: 4}
                sink: {parallelism: 2}
                entities:
                  - {name: customer, topic: crm.customers, table: dim_customer, key: [id], tracked: [v],
                     columns: {id: text, v: text}}
                """, "test config", Map.of());

        assertThatThrownBy(() -> DimstreamService.start(config, ServiceOptions.defaults(dir), new SimpleMeterRegistry()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sink.parallelism: 2 connections need postgres.pool-size of at least 5 (the service's other work takes 3"
                        + " more), got 4");
    }
}
