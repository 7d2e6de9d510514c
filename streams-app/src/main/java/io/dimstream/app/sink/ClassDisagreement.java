package io.dimstream.app.sink;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.db.write.ApplyResult;
import java.util.EnumMap;
import java.util.Map;

/**
 * How far the topology's classes of a batch's events (the {@code class} each change record
 * carries, judged against the key's state in the Kafka Streams store) are from the writer's
 * classes of the same events (judged in SQL against the table: DESIGN section 2 makes the second
 * judgement deliberate). Per class, the absolute difference of the two counts; classes that agree
 * are left out.
 *
 * <p>Counts, not events: the writer reports a batch's classes as totals, and matching each event
 * back would cost a query per batch. A difference is expected now and then: records read again
 * after a crash ({@code duplicate} for the writer), a late pair inside one batch (the writer
 * orders a batch by event time), events PostgreSQL refused, a memory pruned on one side only, events
 * of an erased key dropped by its tombstone ({@code dimstream erase}: the writer counts them erased). A
 * steady rate means the topology's key state and the table disagree: run the integrity check.
 */
final class ClassDisagreement {

    private ClassDisagreement() {
    }

    static Map<ChangeClass, Integer> between(Map<ChangeClass, Integer> topology, ApplyResult writer) {
        Map<ChangeClass, Integer> out = new EnumMap<>(ChangeClass.class);
        for (ChangeClass c : ChangeClass.values()) {
            int d = Math.abs(topology.getOrDefault(c, 0) - writerCount(c, writer));
            if (d > 0) {
                out.put(c, d);
            }
        }
        return out;
    }

    static int writerCount(ChangeClass c, ApplyResult r) {
        return switch (c) {
            case NEW -> r.newKeys();
            case CHANGED -> r.changed();
            case DELETED -> r.deleted();
            case UNCHANGED -> r.unchanged();
            case LATE -> r.late();
        };
    }
}
