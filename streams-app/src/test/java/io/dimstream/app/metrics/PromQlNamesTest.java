package io.dimstream.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class PromQlNamesTest {

    @Test
    void findsTheMetricNamesAndNothingElse() {
        assertThat(PromQlNames.of("sum by (entity, class) (rate(dimstream_events_total{class=~\"new|changed\", entity=\"$entity\"}[$__rate_interval]))"))
                .isEqualTo(Set.of("dimstream_events_total"));
        assertThat(PromQlNames.of("increase(dimstream_sink_rejects_total[15m]) > 0 or (dimstream_sink_rejects_total unless "
                + "dimstream_sink_rejects_total offset 15m) > 0"))
                .isEqualTo(Set.of("dimstream_sink_rejects_total"));
        assertThat(PromQlNames.of("rate(a_seconds_sum[5m]) / on (entity) group_left(x) rate(a_seconds_count[5m]) * 1e3 + 0.5"))
                .isEqualTo(Set.of("a_seconds_count", "a_seconds_sum"));
        assertThat(PromQlNames.of("max_over_time(dimstream_sink_lag_records[10m:1m]) - ${__interval} and bool up"))
                .isEqualTo(Set.of("dimstream_sink_lag_records", "up"));
        assertThat(PromQlNames.of("jvm_memory_used_bytes{area='heap', id=~\"G1.*\"}")).isEqualTo(Set.of("jvm_memory_used_bytes"));
    }
}
