package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.secrets.Secrets;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigCommandTest {

    @TempDir
    Path dir;

    @Test
    void offlinePrintsTheEffectiveConfigWithThePasswordMaskedAndConnectsToNothing() throws Exception {
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

        CliRun run = CliRun.of("config", "--config", file.toString(), "--offline");

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
                  batch-size: 100000
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
                      event_seq: event_seq
                      known_from: known_from
                      end_known_from: end_known_from

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

    @Test
    void withAReachableDatabaseTheColumnsAddedWhileRunningFollowTheConfig() throws Exception {
        Path file = Files.writeString(dir.resolve("c.yml"), """
                postgres: {url: "%s"}
                entities:
                  - name: people
                    topic: crm.people
                    table: cli_cfg_people
                    key: [person_id]
                    tracked: [name]
                    schema-evolution: lenient
                    new-columns: tracked
                    columns: {person_id: text, name: varchar(40)}
                  - name: plain
                    topic: crm.plain
                    table: cli_cfg_plain
                    key: [id]
                    tracked: [v]
                    columns: {id: text, v: text}
                """.formatted(TestPostgres.jdbcUrl()));
        DataSource ds = TestPostgres.dataSource();
        EntitySpec people = CommandSupport.loadConfig(file).entity("people").toEntitySpec();
        EntityTables.ensure(ds, people);
        // two batches of the sink: vip (type-1) first, then a field whose name holds a newline
        EntitySpec first = Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, people,
                List.of(new EvolvedColumns.NewColumn("vip", ColumnType.BOOLEAN, false, "crm.people-1@7"))));
        Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, first,
                List.of(new EvolvedColumns.NewColumn("nick\nname", ColumnType.TEXT, true, "crm.people-0@42"))));
        // and a configured column widened: varchar(40) to varchar(80)
        Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, people, List.of(new EvolvedColumns.Widening("name",
                TypeWidening.ColumnDef.of(new TypeModifier.Length(80)), "crm.people-0@50"))));
        List<EvolvedColumns.Column> catalog = EvolvedColumns.list(ds, "people");
        String vip = "added while running at " + catalog.get(0).addedAt() + " from crm.people-1@7";
        String nick = "added while running at " + catalog.get(1).addedAt() + " from crm.people-0@42";
        String name = "config; type widened from character varying(40) at " + catalog.get(2).widenedAt().orElseThrow();

        CliRun offline = CliRun.of("config", "--config", file.toString(), "--offline");
        CliRun online = CliRun.of("config", "--config", file.toString());

        assertThat(offline.exitCode()).isZero();
        assertThat(offline.out()).startsWith("postgres:\n  url: " + Secrets.mask(TestPostgres.jdbcUrl()) + "\n").doesNotContain("# ");
        // the merged spec's order: name, then tracked nick\nname before type-1 vip, whatever the order they were added in
        assertThat(online).isEqualTo(new CliRun(0, offline.out()
                + "# columns added or widened while running (dimstream.entity_columns at " + Secrets.mask(TestPostgres.jdbcUrl()) + "):\n"
                + "# people:\n"
                + "#   column          type                   role     origin\n"
                + "#   name            character varying(80)  tracked  " + name + "\n"
                + "#   nick\\u000Aname  text                   tracked  " + nick + "\n"
                + "#   vip             boolean                type-1   " + vip + "\n"
                + "# plain: none\n", ""));
    }

    @Test
    void anUnreachableDatabaseIsOneLineAfterTheConfigAndStillExitsZero() throws Exception {
        Path file = Files.writeString(dir.resolve("c.yml"), """
                postgres: {url: "jdbc:postgresql://127.0.0.1:1/dim?user=dim&password=s3cret"}
                entities:
                  - name: customer
                    topic: crm.customers
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                """);

        CliRun offline = CliRun.of("config", "--config", file.toString(), "--offline");
        CliRun online = CliRun.of("config", "--config", file.toString());

        assertThat(online).isEqualTo(new CliRun(0, offline.out()
                + "# columns added or widened while running: not read from PostgreSQL at jdbc:postgresql://127.0.0.1:1/dim?user=dim&password=****: "
                + "Connection to 127.0.0.1:1 refused. Check that the hostname and port are correct and that the postmaster is "
                + "accepting TCP/IP connections. (SQL state 08001); --offline skips this\n", ""));
        assertThat(offline.out()).endsWith("      event_seq: event_seq\n      known_from: known_from\n      end_known_from: end_known_from\n\n");
    }
}
