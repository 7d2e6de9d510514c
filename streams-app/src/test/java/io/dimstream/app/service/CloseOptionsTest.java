package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.junit.jupiter.api.Test;

/**
 * How the service closes Kafka Streams on a clean stop: it leaves its groups, static member
 * ({@code --instance-id}) or not, so that the deployment's other instances take its partitions at
 * once instead of leaving them idle until it is back (the sink's consumer does the same).
 */
class CloseOptionsTest {

    @Test
    void aCleanStopLeavesTheGroupWithin30Seconds() {
        assertThat(Seen.of(DimstreamService.closeOptions()))
                .isEqualTo(new Seen(GroupMembershipOperation.LEAVE_GROUP, Optional.of(Duration.ofSeconds(30))));
    }

    /** What a {@link CloseOptions} holds (its fields are protected: read through a subclass). */
    private record Seen(GroupMembershipOperation operation, Optional<Duration> timeout) {

        static Seen of(CloseOptions options) {
            return new Reader(options).seen();
        }
    }

    private static final class Reader extends CloseOptions {

        Reader(CloseOptions options) {
            super(options);
        }

        Seen seen() {
            return new Seen(operation, timeout);
        }
    }
}
