package io.dimstream.app.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading a slice file for {@code publish-snapshot}: every row checked before anything is sent. */
class SnapshotPublisherTest {

    private static final Instant AT = Instant.parse("2025-08-01T00:00:00Z");

    private static EntityConfig entity(String mode) {
        return DimstreamConfig.parse("""
                postgres:
                  url: jdbc:postgresql://127.0.0.1:5432/x
                entities:
                  - name: customer
                    topic: crm.customer_snapshots
                    %s
                    table: dim_customer
                    key: [customer_id, region]
                    tracked: [email]
                    type1: [last_login]
                    columns: {customer_id: text, region: integer, email: text, last_login: bigint}
                """.formatted(mode), "test.yml", Map.of()).entity("customer");
    }

    private static List<SnapshotPublisher.Row> read(String text) throws Exception {
        return SnapshotPublisher.read(new BufferedReader(new StringReader(text)), entity("mode: snapshot"), AT);
    }

    private static String describe(SnapshotPublisher.Row r) {
        return r.line() + " " + new String(r.key(), StandardCharsets.UTF_8) + " " + new String(r.value(), StandardCharsets.UTF_8);
    }

    @Test
    void rowsAreKeyedByTheirBusinessKeyAndStampedWithTheSliceInstant() throws Exception {
        List<SnapshotPublisher.Row> rows = read("""
                {"customer_id": "C1", "region": 7, "email": "a@x.io", "last_login": 3}

                {"customer_id": "C2", "region": "8", "email": null, "snapshot_time": "2025-08-01T02:00:00+02:00"}
                """);

        assertThat(rows.stream().map(SnapshotPublisherTest::describe).toList()).containsExactly(
                "1 [\"C1\",\"7\"] {\"customer_id\":\"C1\",\"region\":7,\"email\":\"a@x.io\",\"last_login\":3,"
                        + "\"snapshot_time\":\"2025-08-01T00:00:00.000000Z\"}",
                "3 [\"C2\",\"8\"] {\"customer_id\":\"C2\",\"region\":\"8\",\"email\":null,\"snapshot_time\":\"2025-08-01T00:00:00.000000Z\"}");
    }

    @Test
    void everyBadLineIsNamedAndNothingIsToBeSent() {
        assertThatThrownBy(() -> read("""
                {"customer_id": "C1", "region": 7, "email": "a@x.io"}
                not json
                ["C2"]
                {"customer_id": null, "region": 7}
                {"customer_id": "C3", "region": "seven"}
                {"customer_id": "C1", "region": 7, "email": "b@x.io"}
                {"customer_id": "C4", "region": 1, "snapshot_time": "2025-07-31T00:00:00Z"}
                {"customer_id": "C5", "region": 1, "phone": "123"}
                {"customer_id": "C6", "region": 1}{"customer_id": "C7", "region": 1}
                """))
                .isInstanceOfSatisfying(SnapshotPublisher.BadSliceException.class, e -> assertThat(e.problems()).containsExactly(
                        "line 2: not valid JSON",
                        "line 3: not a JSON object (one row of the slice per line)",
                        "line 4: key column 'customer_id' is NULL",
                        "line 5: column 'region': expected integer, got string \"seven\"",
                        "line 6: key [\"C1\",\"7\"] is already on line 1 (a slice holds each key once)",
                        "line 7: field 'snapshot_time' is \"2025-07-31T00:00:00Z\", not the slice's instant 2025-08-01T00:00:00.000000Z",
                        "line 8: column 'phone' is not declared for entity 'customer'",
                        "line 9: trailing content after the JSON value at byte 34"));
    }

    @Test
    void anEntityInChangesModeIsRefused() {
        assertThatThrownBy(() -> SnapshotPublisher.read(new BufferedReader(new StringReader("")), entity(""), AT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("entity customer is not mode: snapshot (its topic carries change events)");
    }
}
