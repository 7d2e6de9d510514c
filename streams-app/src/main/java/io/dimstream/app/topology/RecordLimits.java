package io.dimstream.app.topology;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.StreamsConfig;

/**
 * How big one record that the topology writes may be, and how big a record is on the wire.
 *
 * <p>The limit is deliberate (docs/operations.md, "Record size limits"): every topic dimstream writes (the
 * repartition and changelog topics Kafka Streams creates, the changes and DLQ topics
 * {@link TopicPlanner} creates) gets Kafka's default {@code max.message.bytes},
 * {@value #DEFAULT_MAX_MESSAGE_BYTES}, set explicitly so a broker with another default changes
 * nothing, and the Streams producer gets Kafka's default {@code max.request.size},
 * {@value #DEFAULT_MAX_REQUEST_SIZE}, so producer and topics agree. Any record a source topic with
 * Kafka's defaults accepted therefore has a home in the DLQ (cut to fit only when dimstream's
 * headers push it over), no broker or consumer needs retuning, and existing topics created with the
 * broker's default agree with the limit after an upgrade. A record that would be bigger is never
 * handed to the producer: with exactly-once, a send the producer or broker refuses dooms the whole
 * transaction, so the decode step checks first ({@link DecodeProcessor}).
 *
 * <p>Raising it takes three settings together: {@code kafka.streams: {producer.max.request.size: N,
 * topic.max.message.bytes: N}} (the internal topics, and this limit, which takes the smaller of the
 * two) and {@code max.message.bytes=N} on the changes and DLQ topics.
 *
 * @param maxRecordBytes the largest {@link #upperBound} of a record the topology may send
 */
record RecordLimits(int maxRecordBytes) {

    /** Kafka's default producer {@code max.request.size}. */
    static final int DEFAULT_MAX_REQUEST_SIZE = 1_048_576;
    /** Kafka's default topic {@code max.message.bytes} (1 MiB + 12 bytes of legacy log overhead). */
    static final int DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;
    static final RecordLimits DEFAULTS = new RecordLimits(Math.min(DEFAULT_MAX_REQUEST_SIZE, DEFAULT_MAX_MESSAGE_BYTES));

    /**
     * A record batch's fixed overhead (magic v2: base offset, length, epoch, magic, CRC, attributes,
     * offsets, timestamps, producer id, epoch, sequence, count).
     */
    private static final int BATCH_OVERHEAD = 61;
    /** A record's own fixed overhead at most: length, attributes, timestamp and offset deltas (varints). */
    private static final int RECORD_OVERHEAD = 21;
    /** The most bytes a varint length prefix of an int takes. */
    private static final int VARINT = 5;

    /** The limit of the Kafka Streams config in force: the smaller of the producer's and the internal topics' limits. */
    static RecordLimits from(Map<String, ?> streamsConfig) {
        int request = intOf(streamsConfig, StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
                intOf(streamsConfig, ProducerConfig.MAX_REQUEST_SIZE_CONFIG, DEFAULT_MAX_REQUEST_SIZE));
        int message = intOf(streamsConfig, StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG), DEFAULT_MAX_MESSAGE_BYTES);
        return new RecordLimits(Math.min(request, message));
    }

    private static int intOf(Map<String, ?> config, String key, int otherwise) {
        Object v = config.get(key);
        if (v == null) {
            return otherwise;
        }
        if (v instanceof Number n) {
            return n.intValue();
        }
        try {
            return Integer.parseInt(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": not a number of bytes: " + v, e);
        }
    }

    /**
     * An upper bound of the bytes a record takes in a batch of its own, never below what the Kafka
     * producer estimates for its {@code max.request.size} check (RecordLimitsTest compares them), nor
     * below the batch size the broker compares with {@code max.message.bytes}.
     */
    static int upperBound(byte[] key, byte[] value, Header[] headers) {
        long size = BATCH_OVERHEAD + RECORD_OVERHEAD + VARINT + length(key) + VARINT + length(value) + VARINT;
        for (Header h : headers) {
            size += VARINT + h.key().getBytes(java.nio.charset.StandardCharsets.UTF_8).length + VARINT + length(h.value());
        }
        return (int) Math.min(Integer.MAX_VALUE, size);
    }

    /** The bytes a record takes beyond its value: {@link #upperBound} with an empty value. */
    static int overhead(byte[] key, Header[] headers) {
        return upperBound(key, null, headers);
    }

    boolean fits(int upperBound) {
        return upperBound <= maxRecordBytes;
    }

    private static int length(byte[] b) {
        return b == null ? 0 : b.length;
    }
}
