package io.dimstream.app.topology;

import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMERS;
import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMER_PIPELINE;
import static io.dimstream.app.topology.TopologyClassificationTest.CUSTOMER_SEQUENCE_CHANGES;
import static io.dimstream.app.topology.TopologyClassificationTest.customerChange;
import static io.dimstream.app.topology.TopologyClassificationTest.pipe;
import static io.dimstream.app.topology.TopologyClassificationTest.pipeCustomerSequence;
import static io.dimstream.app.topology.TopologyClassificationTest.row;
import static io.dimstream.app.topology.TopologyClassificationTest.upsert;
import static io.dimstream.app.topology.TopologyFixtures.changes;
import static io.dimstream.app.topology.TopologyFixtures.driver;
import static io.dimstream.app.topology.TopologyFixtures.input;
import static io.dimstream.app.topology.TopologyFixtures.output;
import static io.dimstream.app.topology.TopologyFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.db.event.RecordHash;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-key state: its serialized form, its bound, and classification that goes on after a restart. */
class TopologyStateTest {

    @TempDir
    Path stateDir;

    private static final byte[] HASH = RecordHash.of(List.of("a@x", "Bergen"));

    @Test
    void keyStateRoundTripsThroughItsCompactFormForBothNewestStates() {
        KeyState upsert = new KeyState(KeyState.micros(Instant.parse("2025-08-22T17:00:00.123456Z")), HASH,
                List.of(new KeyState.Fingerprint(1L, -7L), new KeyState.Fingerprint(2L, 42L)));
        KeyState deleted = new KeyState(-5L, null, List.of(new KeyState.Fingerprint(-5L, 3L)));

        assertThat(List.of(KeyState.fromBytes(upsert.toBytes()), KeyState.fromBytes(deleted.toBytes()))).isEqualTo(List.of(upsert, deleted));
        assertThat(List.of(upsert.toBytes().length, deleted.toBytes().length)).isEqualTo(List.of(2 + 8 + 32 + 2 + 32, 2 + 8 + 2 + 16));
        assertThat(upsert.newestMicros()).isEqualTo(1_755_882_000_123_456L);
    }

    @Test
    void fingerprintsAreBoundedToTheMostRecentArrivals() {
        KeyState s = new KeyState(0L, HASH, List.of());
        List<KeyState.Fingerprint> expected = new ArrayList<>();
        for (int i = 0; i < KeyState.MAX_FINGERPRINTS + 3; i++) {
            s = s.remember(new KeyState.Fingerprint(i, i));
            if (i >= 3) {
                expected.add(new KeyState.Fingerprint(i, i));
            }
        }

        assertThat(s).isEqualTo(new KeyState(0L, HASH, expected));
        assertThat(KeyState.fromBytes(s.toBytes())).isEqualTo(s);
        assertThat(s.remembers(new KeyState.Fingerprint(2, 2))).isFalse();
    }

    /**
     * A restart: the store's entries, as a changelog restore would bring them back, carried into a
     * second driver (TopologyTestDriver wipes its state directory on close, so they are copied).
     */
    @Test
    void classificationGoesOnFromTheRestoredStoreAfterARestart() {
        List<KeyValue<Bytes, byte[]>> entries = new ArrayList<>();
        try (TopologyTestDriver first = driver(List.of(CUSTOMER_PIPELINE), new SimpleMeterRegistry(), stateDir)) {
            pipeCustomerSequence(input(first, CUSTOMERS));
            assertThat(changes(output(first, "dimstream.customer.changes"))).isEqualTo(CUSTOMER_SEQUENCE_CHANGES);
            KeyValueStore<byte[], byte[]> store = first.getKeyValueStore(DimstreamTopology.storeName("customer"));
            KeyState c1 = KeyState.fromBytes(store.get(utf8("[\"C1\"]")));
            assertThat(List.of(c1.newestMicros(), RecordHash.hex(c1.newestHash()), c1.recent().size()))
                    .isEqualTo(List.of(KeyState.micros(Instant.parse("2025-08-22T21:00:00Z")), RecordHash.hex(HASH), 7));
            try (KeyValueIterator<byte[], byte[]> all = store.all()) {
                all.forEachRemaining(kv -> entries.add(KeyValue.pair(Bytes.wrap(kv.key), kv.value)));
            }
        }
        assertThat(entries).extracting(kv -> TopologyFixtures.text(kv.key.get())).containsExactlyInAnyOrder("[\"C1\"]", "[\"C2\"]");

        try (TopologyTestDriver second = driver(List.of(CUSTOMER_PIPELINE), new SimpleMeterRegistry(), stateDir)) {
            KeyValueStore<byte[], byte[]> restored = second.getKeyValueStore(DimstreamTopology.storeName("customer"));
            entries.forEach(kv -> restored.put(kv.key.get(), kv.value));
            TestInputTopic<byte[], byte[]> in = input(second, CUSTOMERS);
            pipe(in, "C1", upsert("2025-08-22T21:00:00Z", "C1", "a@x", "Bergen", 4)); // re-delivery of offset 8: duplicate
            pipe(in, "C1", upsert("2025-08-22T22:00:00Z", "C1", "a@x", "Bergen", 5)); // re-assertion of the newest state
            pipe(in, "C2", upsert("2025-08-22T17:00:00Z", "C2", "b@x", "Rome", 9));   // older than C2's newest

            assertThat(changes(output(second, "dimstream.customer.changes"))).isEqualTo(List.of(
                    customerChange(ChangeClass.UNCHANGED, "2025-08-22T22:00:00Z", row("C1", "a@x", "Bergen", 5), 1),
                    customerChange(ChangeClass.LATE, "2025-08-22T17:00:00Z", row("C2", "b@x", "Rome", 9), 2)));
        }
    }
}
