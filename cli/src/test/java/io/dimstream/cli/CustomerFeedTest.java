package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's generated feed, checked against the demo config (which lives in this module). */
class CustomerFeedTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void sameSeedGivesTheSameFeed() {
        List<CustomerFeed.FeedRecord> a = new CustomerFeed(7, 20, Instant.parse("2025-08-01T00:00:00Z")).next(300);
        List<CustomerFeed.FeedRecord> b = new CustomerFeed(7, 20, Instant.parse("2025-08-01T00:00:00Z")).next(300);

        assertThat(a.stream().map(CustomerFeed.FeedRecord::valueText).toList())
                .isEqualTo(b.stream().map(CustomerFeed.FeedRecord::valueText).toList());
    }

    @Test
    void everyKindOccursAndOnlyMalformedRecordsAreInvalid(@TempDir Path dir) throws Exception {
        EntitySpec customer = demoEntity(dir);
        EventValidator validator = new EventValidator(customer);
        List<CustomerFeed.FeedRecord> feed = new CustomerFeed(11, 30, Instant.parse("2025-08-01T00:00:00Z")).next(2000);

        Map<String, TreeSet<Boolean>> validityByKind = new TreeMap<>();
        for (int i = 0; i < feed.size(); i++) {
            CustomerFeed.FeedRecord r = feed.get(i);
            NativeEventJson.Parsed p = NativeEventJson.parse(r.valueText(), i, Source.kafka("crm.customers", 0, i));
            boolean valid = p.event() != null && validator.validate(p.event()).ok();
            validityByKind.computeIfAbsent(r.kind(), k -> new TreeSet<>()).add(valid);
        }

        assertThat(validityByKind).isEqualTo(Map.of(
                "create", new TreeSet<>(List.of(true)),
                "tracked change", new TreeSet<>(List.of(true)),
                "type-1 change", new TreeSet<>(List.of(true)),
                "delete", new TreeSet<>(List.of(true)),
                "resurrection", new TreeSet<>(List.of(true)),
                "late", new TreeSet<>(List.of(true)),
                "duplicate", new TreeSet<>(List.of(true)),
                "malformed", new TreeSet<>(List.of(false))));
    }

    @Test
    void aSchemaChangeAddsTheNewFieldToEveryUpsertFromItsRecordOnAndChangesNothingElse() throws Exception {
        int from = 150;
        List<CustomerFeed.FeedRecord> plain = new CustomerFeed(2025, 50, Instant.parse("2025-08-01T00:00:00Z")).next(300);
        List<CustomerFeed.FeedRecord> changed = new CustomerFeed(2025, 50, Instant.parse("2025-08-01T00:00:00Z"), from).next(300);

        Map<String, Object> valueByCustomer = new TreeMap<>();
        Map<String, Integer> carriedBy = new TreeMap<>();
        for (int i = 0; i < plain.size(); i++) {
            CustomerFeed.FeedRecord p = plain.get(i);
            CustomerFeed.FeedRecord c = changed.get(i);
            assertThat(c.kind()).isEqualTo(p.kind());
            assertThat(c.key()).isEqualTo(p.key());
            if (i < from || c.kind().equals("malformed") || c.kind().equals("delete")
                    || c.kind().equals("duplicate") && !JSON.readTree(c.value()).path("data").has(CustomerFeed.NEW_FIELD)) {
                // before the switch, and what is no upsert of now (a retry re-sends an older record as it was)
                assertThat(c.valueText()).as("record %d", i).isEqualTo(p.valueText());
                continue;
            }
            ObjectNode withField = (ObjectNode) JSON.readTree(c.value());
            ObjectNode data = (ObjectNode) withField.get("data");
            assertThat(data.has(CustomerFeed.NEW_FIELD)).as("record %d (%s) carries the new field", i, c.kind()).isTrue();
            Object value = data.get(CustomerFeed.NEW_FIELD).isNull() ? null : data.get(CustomerFeed.NEW_FIELD).asText();
            String id = data.get("customer_id").asText();
            if (!c.kind().equals("duplicate")) {
                // drawn once per customer and kept: never from a value back to NULL, nor to another value
                if (valueByCustomer.containsKey(id)) {
                    assertThat(value).as("record %d of %s", i, id).isEqualTo(valueByCustomer.get(id));
                }
                valueByCustomer.put(id, value);
                carriedBy.merge(value == null ? "null" : "value", 1, Integer::sum);
            }
            data.remove(CustomerFeed.NEW_FIELD);
            assertThat(JSON.readTree(p.value())).as("record %d without the new field", i).isEqualTo(withField);
        }
        assertThat(carriedBy.keySet()).as("upserts carry values and NULLs").containsExactly("null", "value");
        assertThat(new TreeSet<>(valueByCustomer.values().stream().filter(java.util.Objects::nonNull).toList()))
                .isEqualTo(new TreeSet<>(List.of("app", "email", "sms")));
    }

    @Test
    void withTheNewColumnAddedOnlyMalformedRecordsAreInvalid(@TempDir Path dir) throws Exception {
        EntitySpec customer = demoEntity(dir).withEvolvedColumn(CustomerFeed.NEW_FIELD, io.dimstream.db.entity.ColumnType.TEXT, true);
        EventValidator validator = new EventValidator(customer);
        List<CustomerFeed.FeedRecord> feed = new CustomerFeed(11, 30, Instant.parse("2025-08-01T00:00:00Z"), 1000).next(2000);

        Map<String, TreeSet<Boolean>> validityByKind = new TreeMap<>();
        for (int i = 0; i < feed.size(); i++) {
            CustomerFeed.FeedRecord r = feed.get(i);
            NativeEventJson.Parsed p = NativeEventJson.parse(r.valueText(), i, Source.kafka("crm.customers", 0, i));
            boolean valid = p.event() != null && validator.validate(p.event()).ok();
            validityByKind.computeIfAbsent(r.kind(), k -> new TreeSet<>()).add(valid);
        }

        assertThat(validityByKind).isEqualTo(Map.of(
                "create", new TreeSet<>(List.of(true)),
                "tracked change", new TreeSet<>(List.of(true)),
                "type-1 change", new TreeSet<>(List.of(true)),
                "delete", new TreeSet<>(List.of(true)),
                "resurrection", new TreeSet<>(List.of(true)),
                "late", new TreeSet<>(List.of(true)),
                "duplicate", new TreeSet<>(List.of(true)),
                "malformed", new TreeSet<>(List.of(false))));
    }

    private static EntitySpec demoEntity(Path dir) throws Exception {
        Path yml = dir.resolve("demo.yml");
        try (InputStream in = CustomerFeedTest.class.getResourceAsStream("/demo/demo.yml")) {
            Files.copy(in, yml);
        }
        return DimstreamConfig.load(yml, Map.of()).entity("customer").toEntitySpec();
    }
}
