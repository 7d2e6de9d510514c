package io.dimstream.app.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Which way a partition's stored offset moved behind this instance's back: ahead is another
 * instance (the fence), behind is PostgreSQL having lost commits (an asynchronous failover), which
 * the log used to call "another instance applied the partition meanwhile".
 */
class StoredOffsetMovedTest {

    private static final TopicPartition TP = new TopicPartition("dimstream.customer.changes", 2);

    @Test
    void aStoredOffsetBehindWhatThisInstanceCommittedIsPostgresLosingCommits() {
        StoredOffsetMoved moved = new StoredOffsetMoved(TP, OptionalLong.of(1_138), OptionalLong.of(1_000));
        assertThat(moved.regressed()).isTrue();
        assertThat(moved.message("500 records")).isEqualTo("dimstream.customer.changes-2: PostgreSQL lost commits: it holds next "
                + "offset 1000 but this instance had committed 1138 (an asynchronous failover, or a restore, lost transactions it had "
                + "acknowledged). The changes at offsets [1000, 1138) are read again from Kafka and applied again (the writer is "
                + "idempotent). Rolled back 500 records");
    }

    @Test
    void noRowWhereThisInstanceHadCommittedOneIsPostgresLosingCommitsToo() {
        StoredOffsetMoved moved = new StoredOffsetMoved(TP, OptionalLong.of(138), OptionalLong.empty());
        assertThat(moved.regressed()).isTrue();
        assertThat(moved.message("12 records")).isEqualTo("dimstream.customer.changes-2: PostgreSQL lost commits: it holds next "
                + "offset none but this instance had committed 138 (an asynchronous failover, or a restore, lost transactions it had "
                + "acknowledged). The changes at offsets from the beginning, [0, 138) are read again from Kafka and applied again (the "
                + "writer is idempotent). Rolled back 12 records");
    }

    @Test
    void aStoredOffsetAheadIsAnotherInstanceFencingThisOne() {
        StoredOffsetMoved ahead = new StoredOffsetMoved(TP, OptionalLong.of(1_000), OptionalLong.of(1_138));
        StoredOffsetMoved firstRow = new StoredOffsetMoved(TP, OptionalLong.empty(), OptionalLong.of(40));
        assertThat(List.of(ahead.regressed(), firstRow.regressed())).isEqualTo(List.of(false, false));
        assertThat(ahead.message("500 records")).isEqualTo("dimstream.customer.changes-2: fenced: PostgreSQL holds next offset 1138 "
                + "but this instance expected 1000; another instance applied the partition meanwhile (or, after a PostgreSQL failover, a commit of this instance"
                + " whose acknowledgement was lost). Rolled back 500 records; "
                + "re-reading from the stored offset");
        assertThat(firstRow.message("the skip of a gap")).isEqualTo("dimstream.customer.changes-2: fenced: PostgreSQL holds next "
                + "offset 40 but this instance expected none; another instance applied the partition meanwhile (or, after a PostgreSQL failover, a commit of this instance"
                + " whose acknowledgement was lost). Rolled back the skip "
                + "of a gap; re-reading from the stored offset");
    }

    @Test
    void regressionsAreCountedPerEntityInPrometheus() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        SinkMetrics metrics = new SinkMetrics(registry);
        metrics.offsetsRegressed("customer");
        metrics.offsetsRegressed("customer");
        metrics.offsetsRegressed("order");
        assertThat(registry.scrape().lines().filter(l -> l.startsWith("dimstream_sink_offsets_regressed_total")).toList())
                .isEqualTo(List.of(
                        "dimstream_sink_offsets_regressed_total{entity=\"customer\"} 2.0",
                        "dimstream_sink_offsets_regressed_total{entity=\"order\"} 1.0"));
    }
}
