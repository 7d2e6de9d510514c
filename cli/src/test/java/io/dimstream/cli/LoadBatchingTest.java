package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.QuarantineReader;
import io.dimstream.db.write.ReferenceModel;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream load} of the demo's file gives one history whatever the batch size (issue 30):
 * late and beyond the lateness horizon are judged in line order within a batch too. Before, batches
 * of 8 found 2 late events and quarantined C8's line 34 (older than C8's line 26 by more than 30
 * days), while one big batch (the default, bounded by the heap) found none late, quarantined nothing
 * and gave C8 a version from 2025-07-10.
 */
class LoadBatchingTest {

    private static final DataSource DS = TestPostgres.dataSource();

    @TempDir
    Path dir;

    /** What the file's 38 lines are, one at a time: line 9 is not JSON, lines 4 and 28 repeat lines 3 and 17, line 34 is beyond P30D. */
    private static final String SUMMARY = """
            applied            34
            new                 8
            changed            12
            deleted             5
            unchanged           4
            late                5
            duplicates          2
            quarantined         1
            rejected            1
            line 9: not valid JSON: Unexpected end-of-input: was expecting closing quote for a string value
            """;

    @Test
    void theDemoFileGivesTheSameTableQuarantineAndSummaryInBatchesOf1And8And100AndTheDefault() throws Exception {
        Path input = dir.resolve("customers.jsonl");
        try (InputStream in = LoadBatchingTest.class.getResourceAsStream("/demo/customers.jsonl")) {
            Files.copy(in, input);
        }
        List<String> lines = Files.readAllLines(input);
        for (String batchSize : new String[] {"1", "8", "100", null}) {
            String name = "demo_batch_" + (batchSize == null ? "default" : batchSize);
            Path config = config(name);
            EntitySpec spec = DimstreamConfig.load(config, Map.of()).entity(name).toEntitySpec();
            List<String> args = new ArrayList<>(List.of("load", "--config", config.toString(), "--entity", name, "--input", input.toString()));
            if (batchSize != null) {
                args.addAll(List.of("--batch-size", batchSize));
            }

            CliRun run = CliRun.of(args.toArray(String[]::new));

            String as = "--batch-size " + (batchSize == null ? "default" : batchSize);
            assertThat(run.err()).as(as).isEmpty();
            assertThat(run.out()).as(as).isEqualTo(SUMMARY);
            ReferenceModel.Outcome model = new ReferenceModel(spec).inArrivalOrder(events(lines));
            assertThat(model.counts()).isEqualTo(new ReferenceModel.Counts(8, 12, 5, 4, 5, 2, 1));
            assertThat(EntityTableReader.rows(DS, spec)).as(as).isEqualTo(model.rows());
            // the same line (seq's low half: the line number), in any run
            assertThat(QuarantineReader.rows(DS, spec)).as(as)
                    .extracting(q -> new ReferenceModel.Quarantined(q.key(), q.eventTime(), q.seq() & ArrivalSeq.MAX_LOAD_LINE, q.newest()))
                    .containsExactly(new ReferenceModel.Quarantined(List.of("C8"), Instant.parse("2025-07-10T10:00:00Z"), 34,
                            Instant.parse("2025-08-20T10:00:00Z")))
                    .isEqualTo(model.quarantine());
        }
    }

    /** The demo's entity (demo.yml) under its own name and table, in the test database, without load.batch-size: the default. */
    private Path config(String name) throws Exception {
        Path file = dir.resolve(name + ".yml");
        Files.writeString(file, """
                postgres:
                  url: "%s"
                entities:
                  - name: %s
                    topic: crm.customers
                    table: %s
                    key: [customer_id]
                    tracked: [email, full_name, country, city, loyalty_tier]
                    type1: [last_login]
                    lateness-horizon: P30D
                    columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                              loyalty_tier: text, last_login: bigint}
                """.formatted(TestPostgres.jdbcUrl(), name, name));
        return file;
    }

    /** The file's events as the model takes them: seq the line number, lines that are not an event left out. */
    private static List<Event> events(List<String> lines) {
        List<Event> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            NativeEventJson.Parsed p = NativeEventJson.parse(lines.get(i), i + 1, Source.line("customers.jsonl", i + 1));
            if (p.rejection() == null) {
                out.add(p.event());
            }
        }
        return out;
    }
}
