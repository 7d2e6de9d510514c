package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsTheEffectiveConfigWithThePasswordMasked() throws Exception {
        Path file = Files.writeString(dir.resolve("c.yml"), """
                kafka: {bootstrap-servers: "kafka:9092"}
                postgres: {url: "jdbc:postgresql://db:5432/dim", user: dim, password: s3cret}
                entities:
                  - name: customer
                    topic: crm.customers
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                """);

        CliRun run = CliRun.of("config", "--config", file.toString());

        assertThat(run.err()).isEmpty();
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).doesNotContain("s3cret");
        assertThat(run.out()).isEqualTo("""
                kafka:
                  bootstrap-servers: kafka:9092
                postgres:
                  url: jdbc:postgresql://db:5432/dim
                  user: dim
                  password: '****'
                  pool-size: 10
                load:
                  batch-size: 10000
                entities:
                  - name: customer
                    topic: crm.customers
                    format: json
                    schema-evolution: strict
                    table: dim_customer
                    key:
                      - customer_id
                    tracked:
                      - email
                    type1: []
                    lateness-horizon: P30D
                    columns:
                      customer_id: text
                      email: text
                    system-columns:
                      surrogate_key: surrogate_key
                      valid_from: valid_from
                      valid_to: valid_to
                      is_current: is_current
                      is_deleted: is_deleted
                      record_hash: record_hash
                      source_topic: source_topic
                      source_partition: source_partition
                      source_offset: source_offset
                      loaded_at: loaded_at

                """);
    }

    @Test
    void aWrongFieldIsRefusedNamingIt() throws Exception {
        Path file = Files.writeString(dir.resolve("c.yml"), """
                postgres: {url: embedded}
                entities:
                  - name: customer
                    topic: crm.customers
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email]
                    lateness-horizon: P3X
                    columns: {customer_id: text, email: text}
                """);

        CliRun run = CliRun.of("config", "--config", file.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("dimstream config: config " + file
                + ": entities[0].lateness-horizon: \"P3X\" is not an ISO-8601 duration or \"unlimited\"\n");
    }
}
