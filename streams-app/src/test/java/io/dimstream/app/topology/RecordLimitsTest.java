package io.dimstream.app.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.AbstractRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

class RecordLimitsTest {

    @Test
    void theUpperBoundIsNeverBelowTheProducersOwnEstimateAndAtMostAFewBytesAbove() {
        // the producer refuses a record whose estimate is over max.request.size; ours must refuse first
        Random random = new Random(7);
        for (int i = 0; i < 2_000; i++) {
            byte[] key = random.nextInt(10) == 0 ? null : new byte[random.nextInt(300)];
            byte[] value = random.nextInt(10) == 0 ? null : new byte[random.nextInt(i < 1_000 ? 20_000 : 2_000_000)];
            Header[] headers = new Header[random.nextInt(8)];
            for (int h = 0; h < headers.length; h++) {
                headers[h] = new RecordHeader("dimstream.h" + "x".repeat(random.nextInt(40)),
                        random.nextInt(5) == 0 ? null : new byte[random.nextInt(3_000)]);
            }
            int kafka = AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE, key, value, headers);
            int ours = RecordLimits.upperBound(key, value, headers);
            assertThat(ours).as("record %d", i).isBetween(kafka, kafka + 16 + 10 * headers.length);
        }
    }

    @Test
    void theLimitIsTheSmallerOfTheProducersRequestSizeAndTheInternalTopicsMessageSize() {
        assertThat(RecordLimits.from(Map.of())).isEqualTo(new RecordLimits(1_048_576));
        assertThat(RecordLimits.from(Map.of("producer.max.request.size", 4096))).isEqualTo(new RecordLimits(4096));
        assertThat(RecordLimits.from(Map.of("max.request.size", "5000"))).isEqualTo(new RecordLimits(5000));
        // the prefixed producer setting wins over the unprefixed one, as in Kafka Streams
        assertThat(RecordLimits.from(Map.of("max.request.size", "5000", "producer.max.request.size", "6000")))
                .isEqualTo(new RecordLimits(6000));
        assertThat(RecordLimits.from(Map.of("producer.max.request.size", "3000000", "topic.max.message.bytes", "2000000")))
                .isEqualTo(new RecordLimits(2_000_000));
        // what StreamsConfigFactory sets: Kafka's defaults
        assertThat(RecordLimits.from(StreamsConfigFactory.create("a", "b:1", java.nio.file.Path.of("s"), List.of(),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), Map.of()).entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(e -> e.getKey().toString(), Map.Entry::getValue))))
                .isEqualTo(RecordLimits.DEFAULTS);
    }
}
