package io.dimstream.app.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ReplayWorker#withoutExactDuplicates}: a repeat is dropped, bytes compared by content. */
class ExactDuplicatesTest {

    private static final Instant T = Instant.parse("2025-08-22T17:00:00Z");

    @Test
    void aRepeatWithEqualBytesIsDroppedAndOtherBytesAreKept() {
        Event first = Event.upsert(T, Map.of("id", "K", "photo", new byte[] {0, 1}), 1, Source.kafka("t", 0, 1L));
        Event repeat = Event.upsert(T, Map.of("id", "K", "photo", new byte[] {0, 1}), 2, Source.kafka("t", 0, 2L));
        Event other = Event.upsert(T, Map.of("id", "K", "photo", new byte[] {0, 2}), 3, Source.kafka("t", 0, 3L));

        assertThat(ReplayWorker.withoutExactDuplicates(List.of(first, repeat, other))).isEqualTo(List.of(first, other));
    }
}
