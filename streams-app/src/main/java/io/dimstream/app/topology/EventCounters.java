package io.dimstream.app.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counter {@code dimstream.events} (Prometheus: {@code dimstream_events_total}) of one entity, tagged
 * {@code entity} and {@code class}: new, changed, deleted, unchanged, late (the change classes),
 * duplicate (dropped by the classifier), dlq (sent to the dead-letter topic), skipped (carried no change), control
 * (end-of-slice markers of a snapshot feed, counted as they are read from the source topic), truncate
 * (Debezium truncates of the source table, ignored or applied as {@code on-truncate} says), message
 * (Debezium logical decoding messages, dropped). Every source record is counted once, under one class.
 */
final class EventCounters {

    static final String NAME = "dimstream.events";
    static final String DUPLICATE = "duplicate";
    static final String DLQ = "dlq";
    static final String SKIPPED = "skipped";
    static final String CONTROL = "control";
    static final String TRUNCATE = io.dimstream.app.decode.Decoded.Skipped.TRUNCATE;
    static final String MESSAGE = io.dimstream.app.decode.Decoded.Skipped.MESSAGE;

    private final MeterRegistry registry;
    private final String entity;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    EventCounters(MeterRegistry registry, String entity) {
        this.registry = registry;
        this.entity = entity;
    }

    void count(String eventClass) {
        counters.computeIfAbsent(eventClass.toLowerCase(Locale.ROOT), c -> Counter.builder(NAME)
                .description("Events by classification")
                .tag("entity", entity)
                .tag("class", c)
                .register(registry)).increment();
    }
}
