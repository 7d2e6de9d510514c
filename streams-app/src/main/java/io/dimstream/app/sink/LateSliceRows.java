package io.dimstream.app.sink;

import io.dimstream.db.apply.Step;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.write.ErasedKeys;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * Rows of a snapshot slice that reach the sink after their slice was judged complete on their
 * partition (published again, or late): such a row can make its key live at a later complete
 * slice's instant that that slice did not carry, so the later slices are judged again for the keys
 * of these rows, in the same transaction, as if the row had come before them. A row of a slice not
 * yet complete is left to the slice's own completion, which judges every later slice for every key.
 * For a changes entity, or a snapshot entity whose rows come in order, this costs one query per
 * batch (no complete slice after the batch's earliest event).
 */
final class LateSliceRows {

    private LateSliceRows() {
    }

    /** The step judging the later slices for the late rows among {@code segment}, or null when it is empty. */
    static Step.DeleteLiveAt after(EntitySpec shape, TopicPartition tp, List<TypedEvent> segment) {
        if (segment.isEmpty()) {
            return null;
        }
        Instant earliest = segment.get(0).eventTime();
        for (TypedEvent e : segment) {
            earliest = e.eventTime().isBefore(earliest) ? e.eventTime() : earliest;
        }
        Instant from = earliest;
        Set<List<String>> lateKeys = new HashSet<>();
        Step.LiveAt when = c -> {
            if (SnapshotSlices.completeAfter(c, shape.name(), tp.partition(), from).isEmpty()) {
                return List.of();
            }
            Set<Instant> instants = new TreeSet<>();
            segment.forEach(e -> instants.add(e.eventTime()));
            List<Instant> late = SnapshotSlices.completeAmong(c, shape.name(), tp.partition(), instants);
            if (late.isEmpty()) {
                return List.of();
            }
            Set<Instant> lateSet = new HashSet<>(late);
            for (TypedEvent e : segment) {
                if (lateSet.contains(e.eventTime())) {
                    lateKeys.add(ErasedKeys.canonicalKey(shape, shape.keyData(e.values())));
                }
            }
            return SnapshotSlices.completeAfter(c, shape.name(), tp.partition(), late.get(0));
        };
        // lineage of the deletes: the segment's last row, the latest of the rows that made them
        return new Step.DeleteLiveAt(when, ArrivalSeq.LOADED_ABSENCE, segment.get(segment.size() - 1).source(),
                (s, key) -> lateKeys.contains(ErasedKeys.canonicalKey(s, s.keyData(key))), "the slices after late slice rows on " + tp);
    }
}
