package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

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

    private static EntitySpec demoEntity(Path dir) throws Exception {
        Path yml = dir.resolve("demo.yml");
        try (InputStream in = CustomerFeedTest.class.getResourceAsStream("/demo/demo.yml")) {
            Files.copy(in, yml);
        }
        return DimstreamConfig.load(yml, Map.of()).entity("customer").toEntitySpec();
    }
}
