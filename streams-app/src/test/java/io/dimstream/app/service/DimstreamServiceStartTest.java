package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.config.DimstreamConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the service refuses before it starts anything (no broker, no database touched). */
class DimstreamServiceStartTest {

    @Test
    void aKafkaThatDoesNotAnswerIsRefusedWithWhatWasTriedBeforeTheDatabaseIsTouched(@TempDir Path dir) throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        DimstreamConfig config = DimstreamConfig.parse("""
                kafka: {bootstrap-servers: "127.0.0.1:%d"}
                postgres: {url: "jdbc:postgresql://127.0.0.1:1/none"}
                entities:
                  - {name: customer, topic: crm.customers, table: dim_customer, key: [id], tracked: [v],
                     columns: {id: text, v: text}}
                """.formatted(closed), "test config", Map.of());
        long t0 = System.nanoTime();

        assertThatThrownBy(() -> DimstreamService.start(config, ServiceOptions.defaults(dir), new SimpleMeterRegistry()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("""
                        no Kafka broker answered at 127.0.0.1:%1$d (kafka.bootstrap-servers); what was tried:
                          127.0.0.1:%1$d: TCP connection refused (nothing listens on that port).
                        Check: that the broker runs, and that 127.0.0.1:%1$d is one of its listeners (the broker's listeners \
                        setting) and the host and port in kafka.bootstrap-servers.""".formatted(closed));
        // a client's own "Timed out waiting for a node assignment" came after 60 s or more
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }

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
