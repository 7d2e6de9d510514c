package io.dimstream.app.load;

import io.dimstream.db.apply.Step;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.write.ErasedKeys;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The slices loaded complete ({@code load --slice-at}) after a loaded change, judged again for the
 * change's keys: an event before such a slice can make its key live at the slice's instant, which
 * the slice did not carry, so the key is deleted there, as loading the change before the slice would
 * have done (a slice loaded later judges every slice after it itself; slices a feed completed on
 * some partitions are not judged here: {@code load} cannot tell a key's partition). The step that
 * follows a load's events in their transaction; it judges nothing when no slice was loaded after the
 * earliest event (one query), and otherwise reads the table's live keys at each such slice once.
 */
final class LoadedSlicesAfter {

    private LoadedSlicesAfter() {
    }

    /**
     * The judging step for the events of {@code step} (a load's {@link Step.Events} or
     * {@link Step.TypedEvents}), or null when it has none. The events' keys are gathered only when a
     * slice was loaded after the earliest of them: a load into any other entity pays one pass for
     * that time and one query.
     */
    static Step.DeleteLiveAt of(EntitySpec shape, Step step, String what) {
        Instant earliest = null;
        if (step instanceof Step.Events ev) {
            for (Event e : ev.events()) {
                earliest = e.eventTime() != null && (earliest == null || e.eventTime().isBefore(earliest)) ? e.eventTime() : earliest;
            }
        } else if (step instanceof Step.TypedEvents te) {
            for (TypedEvent e : te.events()) {
                earliest = earliest == null || e.eventTime().isBefore(earliest) ? e.eventTime() : earliest;
            }
        }
        if (earliest == null) {
            return null;
        }
        Instant from = earliest;
        Set<List<String>> keys = new HashSet<>();
        return new Step.DeleteLiveAt(c -> SnapshotSlices.loadedAfter(c, shape.name(), from), ArrivalSeq.LOADED_ABSENCE,
                new Source(what, null, 0L), (s, key) -> keysOf(s, step, keys).contains(ErasedKeys.canonicalKey(s, s.keyData(key))),
                "the loaded slices after " + what);
    }

    /** The canonical keys of the step's events, gathered into {@code keys} on the first call. */
    private static Set<List<String>> keysOf(EntitySpec shape, Step step, Set<List<String>> keys) {
        if (keys.isEmpty()) {
            if (step instanceof Step.Events ev) {
                ev.events().forEach(e -> keys.add(ErasedKeys.canonicalKey(shape, e.data())));
            } else if (step instanceof Step.TypedEvents te) {
                te.events().forEach(e -> keys.add(ErasedKeys.canonicalKey(shape, shape.keyData(e.values()))));
            }
            keys.remove(null); // a key part that does not type: the writer refused its event
        }
        return keys;
    }
}
