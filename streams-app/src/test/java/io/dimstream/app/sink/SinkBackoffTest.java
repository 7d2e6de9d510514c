package io.dimstream.app.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class SinkBackoffTest {

    @Test
    void waitsDoubleFromTheInitialDelayUpToTheCapAndResetAfterASuccess() {
        DatabaseBackoff b = new DatabaseBackoff(Duration.ofMillis(100), Duration.ofSeconds(10), LoggerFactory.getLogger(SinkBackoffTest.class));
        SQLException down = new SQLException("Connection refused", "08001");
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            waits.add(b.failed("applying", down).toMillis());
        }
        assertThat(waits).containsExactly(100L, 200L, 400L, 800L, 1600L, 3200L, 6400L, 10000L, 10000L, 10000L);
        assertThat(b.failing()).isTrue();
        b.succeeded();
        assertThat(b.failing()).isFalse();
        assertThat(b.remaining()).isZero();
        assertThat(b.failed("applying", down)).isEqualTo(Duration.ofMillis(100));
    }
}
