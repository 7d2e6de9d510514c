package io.dimstream.app.load;

import io.dimstream.app.decode.Decoded;
import io.dimstream.app.decode.Decoders;
import io.dimstream.app.decode.NewFields;
import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.apply.ShapeChange;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.Unchanged;
import io.dimstream.db.schema.EvolvedColumns;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the entity's config says about the fields of a load's events, done to each line or row as
 * the topology's decode step does it to a record of the entity's topic, so a file and the topic give
 * one history: {@code except:} and undeclared fields dropped (each dropped field logged once),
 * "unchanged" values marked, a field {@code schema-evolution: lenient} finds missing carried on
 * ({@link Decoders#fieldRules}); with {@code new-columns:} a field new to the entity becomes a column
 * of it, added in the batch's transaction ({@link NewFields}). Before, a load read a missing field as
 * NULL and refused an undeclared one, where the topic carried the value on and landed the record.
 */
public final class LoadFields {

    private static final Logger LOG = LoggerFactory.getLogger(LoadFields.class);

    /** No rules: every event as read (an entity made in code, not from a config). */
    public static final LoadFields NONE = new LoadFields(UnaryOperator.identity(), CdcOptions.NewColumns.IGNORE, false);

    private final UnaryOperator<Decoded> rules;
    private final CdcOptions.NewColumns newColumns;
    private final boolean lenient;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    private LoadFields(UnaryOperator<Decoded> rules, CdcOptions.NewColumns newColumns, boolean lenient) {
        this.rules = rules;
        this.newColumns = newColumns;
        this.lenient = lenient;
    }

    /** The rules of {@code entity}'s config. */
    public static LoadFields of(EntityConfig entity) {
        CdcOptions cdc = entity.cdc();
        return new LoadFields(Decoders.fieldRules(entity), cdc.evolvesColumns() ? cdc.newColumns() : CdcOptions.NewColumns.IGNORE,
                cdc.schemaEvolution() == CdcOptions.SchemaEvolution.LENIENT);
    }

    /** A batch's events after the rules, the shape they are valid in, and the columns that shape adds to the entity's. */
    record Shaped(List<Event> events, EntitySpec shape, ShapeChange change) {
    }

    /** The rules done to {@code events}, in order, against the entity's shape now. */
    Shaped apply(EntitySpec now, List<Event> events) {
        if (this == NONE) {
            return new Shaped(events, now, ShapeChange.NONE);
        }
        EntitySpec shape = now;
        Map<String, String> firstSource = new LinkedHashMap<>();
        Map<String, List<ShapeChange.Carrier>> carriers = new LinkedHashMap<>();
        List<Event> out = new ArrayList<>(events.size());
        for (Event e : events) {
            Decoded.Ok ok = (Decoded.Ok) rules.apply(new Decoded.Ok(e)); // the rules make an event of an event
            for (String field : ok.ignored()) {
                dropped(field, e.source(), "it is no column of the entity (undeclared-columns: ignore)");
            }
            Event shaped = ok.event();
            if (newColumns != CdcOptions.NewColumns.IGNORE) {
                NewFields.Passed passed = NewFields.pass(shape, shaped, Map.of(), newColumns, this::dropped);
                for (String c : passed.spec().evolved()) {
                    if (!shape.columns().containsKey(c)) {
                        firstSource.put(c, e.source().toString());
                    }
                }
                shape = passed.spec();
                shaped = passed.event();
                carriers(now, shaped, carriers);
            } else if (lenient) {
                shaped = NewFields.carryOn(shape, shaped);
            }
            out.add(shaped);
        }
        List<EvolvedColumns.NewColumn> add = new ArrayList<>();
        for (Map.Entry<String, String> c : firstSource.entrySet()) {
            add.add(new EvolvedColumns.NewColumn(c.getKey(), shape.type(c.getKey()), shape.tracked().contains(c.getKey()), c.getValue()));
        }
        carriers.keySet().retainAll(firstSource.keySet());
        firstSource.keySet().forEach(c -> carriers.computeIfAbsent(c, k -> new ArrayList<>()));
        return new Shaped(out, shape, new ShapeChange(add, List.of(), carriers));
    }

    /** Records {@code e} as a carrier of each field it holds a value of (not one carried on) that {@code now} has no column for. */
    private static void carriers(EntitySpec now, Event e, Map<String, List<ShapeChange.Carrier>> carriers) {
        ShapeChange.Carrier carrier = null;
        for (Map.Entry<String, Object> field : e.data().entrySet()) {
            if (now.columns().containsKey(field.getKey()) || field.getValue() == Unchanged.VALUE) {
                continue;
            }
            if (carrier == null) {
                carrier = ShapeChange.Carrier.of(now, e.data(), e.source().toString());
                if (carrier == null) {
                    return; // the validator refuses the event: it carries nothing
                }
            }
            carriers.computeIfAbsent(field.getKey(), f -> new ArrayList<>()).add(carrier);
        }
    }

    private void dropped(String field, Source at, String why) {
        if (reported.add(field)) {
            LOG.warn("field '{}' of {} dropped: {}; the event lands without it (logged once per field)", field, at, why);
        }
    }
}
