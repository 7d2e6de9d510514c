package io.dimstream.app.topology;

import io.dimstream.db.event.Source;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counter {@code dimstream.fields.ignored} (Prometheus: {@code dimstream_fields_ignored_total}) of one
 * entity, tagged {@code entity} and {@code field}: the source records from which a field was dropped
 * because it is no column of the entity and is not made one ({@code undeclared-columns: ignore}, the
 * default, with {@code new-columns: ignore} or a strict entity; or a name no column may take). The
 * record itself lands. Each field is logged once at WARN, at its first record, with what to do to
 * keep it: a column added at the source is a decision for someone, never a reason to stop a history.
 * At most {@value #MAX_FIELDS} fields of an entity get a tag of their own (a source whose field names
 * vary per record would make a series each); the others are counted, and logged once together, as
 * {@value #OTHER}.
 */
final class IgnoredFields {

    static final String NAME = "dimstream.fields.ignored";
    static final int MAX_FIELDS = 100;
    static final String OTHER = "_other";

    private static final Logger LOG = LoggerFactory.getLogger(IgnoredFields.class);

    private final MeterRegistry registry;
    private final String entity;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    IgnoredFields(MeterRegistry registry, String entity) {
        this.registry = registry;
        this.entity = entity;
    }

    /**
     * Counts one record from which {@code field} was dropped; the field's first record is logged.
     *
     * @param at  the record
     * @param why why it is not a column, or null for the default reason (the entity adds no column)
     */
    void count(String field, Source at, String why) {
        Counter known = counters.get(field);
        if (known != null) {
            known.increment();
            return;
        }
        String tag = counters.size() >= MAX_FIELDS ? OTHER : field;
        counters.computeIfAbsent(tag, f -> {
            LOG.warn("entity {}: the source sends field '{}' (first at {}), which is no column of the entity: {}; it is dropped from "
                    + "each record, which lands without it (counted in dimstream_fields_ignored_total). To keep it, declare it in "
                    + "columns: (and restart), or let it be added while running (new-columns: tracked or type1, with schema-evolution: "
                    + "lenient); undeclared-columns: reject sends such records to the DLQ instead", entity, field, at,
                    why == null ? "new-columns does not add it" : why);
            return Counter.builder(NAME)
                    .description("Source records from which a field that is no column of the entity was dropped")
                    .tag("entity", entity)
                    .tag("field", f)
                    .register(registry);
        }).increment();
    }
}
