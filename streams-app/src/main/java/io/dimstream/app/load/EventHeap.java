package io.dimstream.app.load;

import io.dimstream.db.event.Event;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * A generous estimate of the heap an event holds while it waits in a load's batch: what bounds a
 * batch besides its event count ({@link EventFileLoader}), so a big default batch never outgrows
 * the heap, whatever the rows' width.
 *
 * <p>Object sizes of a 64-bit HotSpot JVM with compressed pointers, rounded up, and every text as if
 * it took two bytes a character (Latin-1 text takes one): an event of this project's benchmark
 * entity (8 columns, a 232-byte line) is estimated at 1,462 bytes on average, where a class
 * histogram of a loading JVM counted about 1.1 KB per event (docs/benchmarks.md). Field names are counted with
 * every event although the JSON reader shares them. Hand-written: a library that measures object
 * graphs (JOL) walks them by reflection, far too slowly for every event of a load.
 */
final class EventHeap {

    /** The event, its source (lineage), its time and the map of its data, before any entry. */
    private static final long EVENT = 200;
    private static final long ENTRY = 48;
    private static final long STRING = 40;

    private EventHeap() {
    }

    static long estimate(Event e) {
        return EVENT + map(e.data());
    }

    private static long map(Map<?, ?> m) {
        long b = 64 + 8L * m.size();
        for (Map.Entry<?, ?> en : m.entrySet()) {
            b += ENTRY + value(en.getKey()) + value(en.getValue());
        }
        return b;
    }

    private static long value(Object v) {
        if (v == null || v instanceof Boolean) {
            return 0; // shared instances
        }
        if (v instanceof String s) {
            return STRING + 2L * s.length();
        }
        if (v instanceof BigInteger i) {
            return 40 + 4L * (i.bitLength() / 32 + 1);
        }
        if (v instanceof BigDecimal d) {
            return 48 + value(d.unscaledValue());
        }
        if (v instanceof Map<?, ?> m) {
            return map(m);
        }
        if (v instanceof List<?> l) {
            long b = 64 + 8L * l.size();
            for (Object o : l) {
                b += 24 + value(o); // the element, and the tree node it is read from
            }
            return b;
        }
        if (v instanceof byte[] bytes) {
            return 16 + bytes.length;
        }
        return 64;
    }
}
