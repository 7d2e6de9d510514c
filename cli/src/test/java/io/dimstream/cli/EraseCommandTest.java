package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The erase verb: its whole report, the tombstone a later load meets, and its refusals. */
class EraseCommandTest {

    private static final AtomicInteger N = new AtomicInteger();

    @TempDir
    Path dir;

    private String entity;

    /** A config of a fresh entity (its name keeps dimstream's shared tables apart between tests). */
    private Path config() throws IOException {
        entity = "cli_erase_" + N.incrementAndGet() + "_" + System.nanoTime() % 100000;
        Path file = dir.resolve("dimstream.yml");
        Files.writeString(file, """
                postgres:
                  url: "%s"
                entities:
                  - name: %s
                    topic: crm.customers
                    table: %s
                    key: [customer_id]
                    tracked: [email, city]
                    lateness-horizon: P30D
                    columns: {customer_id: text, email: text, city: text}
                """.formatted(TestPostgres.jdbcUrl(), entity, entity));
        return file;
    }

    private Path events() throws IOException {
        Path file = dir.resolve("events.jsonl");
        Files.write(file, List.of(
                upsert("2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris"),
                upsert("2025-08-05T09:00:00Z", "C1", "a@x.io", "Lyon"),
                upsert("2025-08-03T09:00:00Z", "C1", "b@x.io", "Lyon"),
                upsert("2025-09-20T09:00:00Z", "C1", "b@x.io", "Nice"),
                upsert("2025-08-02T09:00:00Z", "C1", "c@x.io", "Nice"),
                upsert("2025-08-01T09:00:00Z", "C2", "z@x.io", "Rome")));
        return file;
    }

    private static String upsert(String time, String id, String email, String city) {
        return "{\"op\": \"upsert\", \"event_time\": \"" + time + "\", \"data\": {\"customer_id\": \"" + id + "\", \"email\": \"" + email
                + "\", \"city\": \"" + city + "\"}}";
    }

    @Test
    void eraseReportsTheRowsRemovedPerPlaceAndALaterLoadOfTheKeyIsDroppedByItsTombstone() throws Exception {
        Path config = config();
        Path events = events();
        CliRun.of("load", "--config", config.toString(), "--entity", entity, "--input", events.toString());

        CliRun erase = CliRun.of("erase", "--config", config.toString(), "--entity", entity, "--key", "C1", "--user", "ops-anna");
        CliRun again = CliRun.of("load", "--config", config.toString(), "--entity", entity, "--input", events.toString());

        assertThat(erase).isEqualTo(new CliRun(0, """
                erased 1 key of %s in one transaction (by ops-anna): 9 rows removed or rewritten
                  versions                   4
                  event memory               4
                  superseded versions        0
                  shadow and retired tables  0
                  quarantine                 1
                  sink rejects               0
                  DLQ mirror                 0
                  repair job key lists       0
                  audit entries              0
                  integrity findings         0
                tombstones: 1 added (0 kept already); later events of these keys are dropped, counted in dimstream_events_erased_total
                Kafka keeps its copies (the topic, its DLQ topic, Kafka Streams changelogs) until compaction or retention removes them: \
                docs/operations.md, "Erasing a person"
                """.formatted(entity), ""));
        assertThat(again).isEqualTo(new CliRun(0, """
                applied             0
                new                 0
                changed             0
                deleted             0
                unchanged           0
                late                0
                duplicates          1
                quarantined         0
                erased              5
                rejected            0
                """, ""));
    }

    @Test
    void aKeysFileOfKeysNotFoundErasesNothingAndSaysSoWithoutATombstone() throws Exception {
        Path config = config();
        Path keys = dir.resolve("keys.txt");
        Files.write(keys, List.of("C7", "", "Smith, John"));

        CliRun run = CliRun.of("erase", "--config", config.toString(), "--entity", entity, "--keys-file", keys.toString(), "--no-tombstone",
                "--user", "ops");

        assertThat(run).isEqualTo(new CliRun(0, """
                erased 2 keys of %s in one transaction (by ops): 0 rows removed or rewritten
                  versions                   0
                  event memory               0
                  superseded versions        0
                  shadow and retired tables  0
                  quarantine                 0
                  sink rejects               0
                  DLQ mirror                 0
                  repair job key lists       0
                  audit entries              0
                  integrity findings         0
                no tombstone (--no-tombstone): a replay of the topic or a re-delivered record brings these keys back
                Kafka keeps its copies (the topic, its DLQ topic, Kafka Streams changelogs) until compaction or retention removes them: \
                docs/operations.md, "Erasing a person"
                """.formatted(entity), ""));
    }

    @Test
    void anUnknownEntityABadKeyOrNoKeyIsRefusedNamingWhatToFix() throws Exception {
        Path config = config();

        CliRun unknown = CliRun.of("erase", "--config", config.toString(), "--entity", "order", "--key", "C1");
        CliRun composite = CliRun.of("erase", "--config", config.toString(), "--entity", entity, "--key", "{\"id\": 1}");
        CliRun none = CliRun.of("erase", "--config", config.toString(), "--entity", entity);

        assertThat(List.of(unknown, composite, none)).isEqualTo(List.of(
                new CliRun(2, "", "dimstream erase: --entity: no entity named \"order\" in the config (configured: " + entity + ")\n"),
                new CliRun(2, "", "dimstream erase: --key: the key {\"id\":1} must name exactly the key columns [customer_id]; "
                        + "nothing was erased\n"),
                new CliRun(2, "", "dimstream erase: --key or --keys-file: name the keys to erase\n")));
    }
}
