package io.dimstream.app.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.time.Instant;
import java.util.HashMap;
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

        assertThat(ReplayPoll.withoutExactDuplicates(List.of(first, repeat, other), new HashMap<>())).isEqualTo(List.of(first, other));
    }

    @Test
    void eachDroppedRepeatIsNotedUnderItsFirstCopySoThatItIsRefusedWithIt() {
        Event first = Event.upsert(T, Map.of("id", "K", "n", "x"), 1, Source.kafka("t", 0, 1L));
        Event other = Event.upsert(T, Map.of("id", "L", "n", "x"), 2, Source.kafka("t", 1, 2L));
        Event repeat = Event.upsert(T, Map.of("id", "K", "n", "x"), 3, Source.kafka("t", 2, 3L));
        Event again = Event.upsert(T, Map.of("id", "K", "n", "x"), 4, Source.kafka("t", 0, 4L));
        java.util.Map<Source, List<Source>> repeats = new java.util.HashMap<>();

        assertThat(ReplayPoll.withoutExactDuplicates(List.of(first, other, repeat, again), repeats)).isEqualTo(List.of(first, other));
        assertThat(repeats).isEqualTo(Map.of(Source.kafka("t", 0, 1L), List.of(Source.kafka("t", 2, 3L), Source.kafka("t", 0, 4L))));
    }
}
