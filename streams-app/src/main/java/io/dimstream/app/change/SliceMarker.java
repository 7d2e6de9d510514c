package io.dimstream.app.change;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.event.StrictUtf8;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The end-of-slice control record of a snapshot feed ({@code mode: snapshot}): "every record of
 * slice {@code slice} that belongs on this partition was written before me". Recognised by its
 * header {@value #HEADER} = {@value #END_OF_SLICE}; its value is JSON:
 * <pre>{"entity":"customer","slice":"2025-08-01T00:00:00Z","partition":0,"partitions":3}</pre>
 * {@code partition} is the partition the record is on (checked), {@code partitions} how many
 * partitions the topic has: the producer sends one marker to each. The same format is used on
 * the source topic (one marker per source partition, written by the producer after that
 * partition's slice records) and on the changes topic (one per changes partition, written by the
 * topology once the markers of every source partition have passed that partition's task).
 *
 * @param slice the slice's instant (the value of every slice record's snapshot-time field)
 */
public record SliceMarker(String entity, Instant slice, int partition, int partitions) {

    /** The header naming a dimstream control record. */
    public static final String HEADER = "dimstream.control";
    /** Its value on an end-of-slice marker. */
    public static final String END_OF_SLICE = "end-of-slice";

    public SliceMarker {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(slice, "slice");
        if (partitions < 1 || partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("partition " + partition + " is not one of " + partitions + " partitions");
        }
    }

    /** Whether a record is a dimstream control record (any kind): it carries the {@value #HEADER} header. */
    public static boolean isControl(Headers headers) {
        return headers != null && headers.lastHeader(HEADER) != null;
    }

    /**
     * The control kind named by the header, or null.
     *
     * @throws IllegalArgumentException {@code header dimstream.control is not valid UTF-8: ...}
     */
    public static String controlKind(Headers headers) {
        Header h = headers == null ? null : headers.lastHeader(HEADER);
        if (h == null || h.value() == null) {
            return null;
        }
        try {
            return StrictUtf8.decode(h.value());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("header " + HEADER + " is " + e.getMessage());
        }
    }

    /** Adds the end-of-slice header. */
    public static Headers mark(Headers headers) {
        return ControlRecords.mark(headers, END_OF_SLICE);
    }

    /** The same slice, as the marker of another partition. */
    public SliceMarker onPartition(int p, int n) {
        return new SliceMarker(entity, slice, p, n);
    }

    public byte[] toBytes() {
        ObjectNode root = ControlRecords.MAPPER.createObjectNode();
        root.put("entity", entity);
        root.put("slice", ColumnType.CANONICAL_TIMESTAMP.format(slice));
        root.put("partition", partition);
        root.put("partitions", partitions);
        return root.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Parses a marker's value.
     *
     * @throws IllegalArgumentException naming the field that is missing or wrong
     */
    public static SliceMarker fromBytes(byte[] value) {
        String what = "end-of-slice marker";
        JsonNode root = ControlRecords.object(value, what);
        String entity = ControlRecords.entity(root, what);
        Instant t = ControlRecords.instant(root, what, "slice");
        int partition = intField(root, "partition");
        int partitions = intField(root, "partitions");
        try {
            return new SliceMarker(entity, t, partition, partitions);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("end-of-slice marker: " + e.getMessage());
        }
    }

    private static int intField(JsonNode root, String name) {
        JsonNode n = root.get(name);
        if (n == null || !n.canConvertToInt() || !n.isIntegralNumber()) {
            throw new IllegalArgumentException("end-of-slice marker: field '" + name + "' missing or not an integer");
        }
        return n.intValue();
    }
}
