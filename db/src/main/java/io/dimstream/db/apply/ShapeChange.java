package io.dimstream.db.apply;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.write.ErasedKeys;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Columns a batch needs that the entity does not have yet ({@code new-columns}), and widenings of
 * columns it has: made in the batch's transaction before anything is written
 * ({@link io.dimstream.db.schema.EntityShapes#evolve}).
 *
 * @param carriers per new column, the events of the batch that hold a value of it (their key, canonical
 *                 texts in key order, and their source; an event carrying the column's value on holds
 *                 none), in arrival order: a column no event of a key that is not erased holds a value
 *                 of is not added, and the catalog names the first such event
 *                 ({@link #withoutErasedCarriers}). A column absent from the map is added as it is.
 * @param widenedBy per widening, the event that asks for it; a widening absent from the map is made as it is
 */
public record ShapeChange(List<EvolvedColumns.NewColumn> add, List<EvolvedColumns.Widening> widen, Map<String, List<Carrier>> carriers,
                          Map<EvolvedColumns.Widening, Carrier> widenedBy) {

    private static final Logger LOG = LoggerFactory.getLogger(ShapeChange.class);

    public static final ShapeChange NONE = new ShapeChange(List.of(), List.of());

    /** An event carrying a new column: its key's canonical texts and where it came from. */
    public record Carrier(List<String> key, String source) {
        public Carrier {
            key = java.util.Collections.unmodifiableList(new ArrayList<>(key)); // a key part may be NULL
        }

        /** The carrier an event of {@code entity} with {@code data} from {@code source} is, or null when a key part does not type (the event is refused). */
        public static Carrier of(EntitySpec entity, Map<String, Object> data, String source) {
            List<String> key = ErasedKeys.canonicalKey(entity, data);
            return key == null ? null : new Carrier(key, source);
        }
    }

    public ShapeChange {
        add = List.copyOf(add);
        widen = List.copyOf(widen);
        carriers = Map.copyOf(carriers);
        widenedBy = Map.copyOf(widenedBy);
    }

    /** Columns and widenings whose carriers are not told (a test's, a tool's). */
    public ShapeChange(List<EvolvedColumns.NewColumn> add, List<EvolvedColumns.Widening> widen) {
        this(add, widen, Map.of(), Map.of());
    }

    /** New columns with their carriers, and widenings whose events are not told ({@code load}'s, which types no source schema). */
    public ShapeChange(List<EvolvedColumns.NewColumn> add, List<EvolvedColumns.Widening> widen, Map<String, List<Carrier>> carriers) {
        this(add, widen, carriers, Map.of());
    }

    public boolean isEmpty() {
        return add.isEmpty() && widen.isEmpty();
    }

    /**
     * This change without the new columns of which, while the entity has tombstones, no event of a
     * key that is not erased holds a value, and without the widenings only erased keys' events ask
     * for (read in {@code c}'s transaction): the writer drops erased keys' events, and a column, a
     * wider type, their catalog rows and first sources must not come from them either. A column such
     * an event holds names it as its first source. The events that only carry a dropped column's
     * value on pass the validator without it ({@code EventValidator}); an erased key's event whose
     * value the column is too narrow for is counted erased, not refused ({@code ErasedKeys.notErased}).
     */
    ShapeChange withoutErasedCarriers(Connection c, String entity) throws SQLException {
        boolean told = !add.isEmpty() && !carriers.isEmpty() || !widenedBy.isEmpty();
        if (!told) {
            return this;
        }
        Collection<List<String>> keys = java.util.stream.Stream.concat(carriers.values().stream().flatMap(List::stream),
                        widenedBy.values().stream()).map(Carrier::key).collect(Collectors.toCollection(LinkedHashSet::new));
        Set<List<String>> erased = ErasedKeys.erasedAmong(c, entity, keys); // one probe while the entity has no tombstone
        if (erased.isEmpty()) {
            return this;
        }
        List<EvolvedColumns.NewColumn> kept = new ArrayList<>();
        for (EvolvedColumns.NewColumn n : add) {
            List<Carrier> by = carriers.get(n.column());
            if (by == null) {
                kept.add(n);
                continue;
            }
            by.stream().filter(k -> !erased.contains(k.key())).findFirst().ifPresentOrElse(
                    first -> kept.add(new EvolvedColumns.NewColumn(n.column(), n.type(), n.tracked(), first.source())),
                    () -> LOG.info("{}: column {} not added: only events of erased keys hold a value of it", entity, n.column()));
        }
        List<EvolvedColumns.Widening> keptWidenings = new ArrayList<>();
        for (EvolvedColumns.Widening w : widen) {
            Carrier by = widenedBy.get(w);
            if (by == null || !erased.contains(by.key())) {
                keptWidenings.add(w);
            } else {
                LOG.info("{}: column {} not widened to {} for {}: an event of an erased key", entity, w.column(), w.to().sql(), w.firstSource());
            }
        }
        return new ShapeChange(kept, keptWidenings, carriers, widenedBy);
    }
}
