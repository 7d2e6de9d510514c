package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.junit.jupiter.api.Test;

/**
 * How the service closes Kafka Streams: a dynamic member leaves its group (the next start gets
 * its partitions at once instead of after the session timeout), a static member
 * ({@code --instance-id}) stays, so that it comes back without a rebalance.
 */
class CloseOptionsTest {

    @Test
    void aDynamicMemberLeavesTheGroupOnClose() {
        ServiceOptions dynamic = ServiceOptions.defaults(Path.of("target/close-options"));
        assertThat(dynamic.instanceId()).isEmpty();

        assertThat(Seen.of(DimstreamService.closeOptions(dynamic)))
                .isEqualTo(new Seen(GroupMembershipOperation.LEAVE_GROUP, Optional.of(Duration.ofSeconds(30))));
    }

    @Test
    void aStaticMemberRemainsInTheGroupOnClose() {
        ServiceOptions fixed = ServiceOptions.defaults(Path.of("target/close-options")).withInstanceId("node-1");
        assertThat(fixed.instanceId()).contains("node-1");

        assertThat(Seen.of(DimstreamService.closeOptions(fixed)))
                .isEqualTo(new Seen(GroupMembershipOperation.REMAIN_IN_GROUP, Optional.of(Duration.ofSeconds(30))));
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
