package io.dimstream.app.decode;

import io.dimstream.config.model.CdcOptions;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.Unchanged;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fields of an event against the entity's shape now (its config plus the columns added while
 * running), for every source of events alike: the topology's decode step, a replay and
 * {@code load}. With {@code new-columns:} a field the shape lacks becomes a column
 * ({@link #pass}); with {@code schema-evolution: lenient} a column added while running that an
 * upsert does not carry keeps its value ({@link #carryOn}), as a configured column does
 * ({@link Decoders#fieldRules}).
 */
public final class NewFields {

    private static final Logger LOG = LoggerFactory.getLogger(NewFields.class);

    private NewFields() {
    }

    /** An event with the fields new to the entity passed through, and the entity's shape with them as columns. */
    public record Passed(EntitySpec spec, Event event) {
    }

    /** Told of a field that no column may take: the event goes on without it. */
    @FunctionalInterface
    public interface Dropped {
        void field(String field, Source at, String why);
    }

    /**
     * {@code new-columns:}: a field {@code spec} does not have becomes a column of the returned spec,
     * typed by the record's schema ({@code sourceTypes}) or else by its value ({@link ColumnInference});
     * a field with a NULL value and no schema is left out until a record gives it a value. A delete's
     * image keeps only what the spec knows (a delete writes no attribute). A field whose name no column
     * may take is dropped and told to {@code dropped}: the event goes on without it. Then, as
     * {@link #carryOn}, the added columns an upsert does not carry are unchanged.
     */
    public static Passed pass(EntitySpec spec, Event e, Map<String, ColumnType> sourceTypes, CdcOptions.NewColumns newColumns,
                              Dropped dropped) {
        Map<String, Object> data = null;
        for (Map.Entry<String, Object> f : e.data().entrySet()) {
            String field = f.getKey();
            if (spec.columns().containsKey(field)) {
                continue;
            }
            Optional<ColumnType> type = e.op() == Op.DELETE ? Optional.empty()
                    : Optional.ofNullable(sourceTypes.get(field)).or(() -> ColumnInference.ofValue(f.getValue()));
            if (type.isPresent()) {
                try {
                    spec = spec.withEvolvedColumn(field, type.get(), newColumns == CdcOptions.NewColumns.TRACKED);
                    LOG.info("entity {}: new source field '{}' at {} passed through as a {} column ({})", spec.name(), field, e.source(),
                            newColumns.configName(), type.get().sqlName());
                    continue;
                } catch (IllegalArgumentException refused) {
                    dropped.field(field, e.source(), "no column may take its name (" + refused.getMessage() + ")");
                }
            }
            if (data == null) {
                data = new LinkedHashMap<>(e.data());
            }
            data.remove(field);
        }
        Event passed = data == null ? e : new Event(e.op(), e.eventTime(), data, e.seq(), e.source(), e.badTimeReason());
        return new Passed(spec, carryOn(spec, passed));
    }

    /**
     * {@code schema-evolution: lenient}, as for the config's columns ({@link Decoders#fieldRules}): a
     * column added while running that an upsert does not carry (the source dropped it again) is
     * {@link Unchanged}, its value carried on from the key's event before, not NULL.
     */
    public static Event carryOn(EntitySpec spec, Event e) {
        if (e.op() != Op.UPSERT || spec.evolved().isEmpty()) {
            return e;
        }
        Map<String, Object> data = null;
        for (String c : spec.evolved()) {
            if (!e.data().containsKey(c)) {
                if (data == null) {
                    data = new LinkedHashMap<>(e.data());
                }
                data.put(c, Unchanged.VALUE);
            }
        }
        return data == null ? e : new Event(e.op(), e.eventTime(), data, e.seq(), e.source(), e.badTimeReason());
    }
}
