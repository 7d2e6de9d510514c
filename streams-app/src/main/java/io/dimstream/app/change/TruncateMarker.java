package io.dimstream.app.change;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.event.Source;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.OptionalInt;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The control record of a truncate of the source table ({@code on-truncate: delete-all}): "every
 * key of this changes partition live at {@code time} is deleted at {@code time}, after the changes
 * before me". Recognised by its header {@value SliceMarker#HEADER} = {@value #KIND}; its value is JSON:
 * <pre>{"entity":"customer","time":"2025-08-22T17:00:00.000000Z",
 *  "source":{"topic":"pg.public.customers","partition":0,"offset":42},"partition":1}</pre>
 * {@code source} is the truncate event's own record (the deletes' lineage). {@code partition} is
 * the changes partition the marker is for: a classify task behind the repartition step writes one
 * to its own partition; without the repartition step ({@code partitioned-by-key: true}) the task of
 * the truncate's source partition writes one marker, without {@code partition}, which the changes
 * partitioner sends to every partition. The decode step makes it from a Debezium {@code op: t}
 * event; it never comes from the source topic.
 *
 * @param partition the changes partition it is for, or empty: every partition
 */
public record TruncateMarker(String entity, Instant time, Source source, OptionalInt partition) {

    /** The {@value SliceMarker#HEADER} value of a truncate marker. */
    public static final String KIND = "truncate";
    private static final byte[] KIND_BYTES = KIND.getBytes(StandardCharsets.UTF_8);

    public TruncateMarker {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(partition, "partition");
        if (partition.isPresent() && partition.getAsInt() < 0) {
            throw new IllegalArgumentException("partition " + partition.getAsInt() + " is negative");
        }
    }

    /** Whether a record is a truncate marker (its control header's bytes say {@value #KIND}; bytes that are not UTF-8 do not). */
    public static boolean is(Headers headers) {
        Header h = headers == null ? null : headers.lastHeader(SliceMarker.HEADER);
        return h != null && Arrays.equals(h.value(), KIND_BYTES);
    }

    /** Adds the truncate header (replacing any control header). */
    public static Headers mark(Headers headers) {
        return ControlRecords.mark(headers, KIND);
    }

    /** The same truncate, for changes partition {@code p} alone. */
    public TruncateMarker forPartition(int p) {
        return new TruncateMarker(entity, time, source, OptionalInt.of(p));
    }

    public byte[] toBytes() {
        ObjectNode root = ControlRecords.MAPPER.createObjectNode();
        root.put("entity", entity);
        root.put("time", ColumnType.CANONICAL_TIMESTAMP.format(time));
        ObjectNode src = root.putObject("source");
        src.put("topic", source.topic());
        src.put("partition", source.partition());
        src.put("offset", source.offset());
        partition.ifPresent(p -> root.put("partition", p));
        return root.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Parses a marker's value.
     *
     * @throws IllegalArgumentException naming the field that is missing or wrong
     */
    public static TruncateMarker fromBytes(byte[] value) {
        String what = "truncate marker";
        JsonNode root = ControlRecords.object(value, what);
        String entity = ControlRecords.entity(root, what);
        Instant t = ControlRecords.instant(root, what, "time");
        JsonNode src = root.get("source");
        if (src == null || !src.isObject() || src.get("topic") == null || !src.get("topic").isTextual()) {
            throw new IllegalArgumentException("truncate marker: field 'source' missing or without its topic");
        }
        Source source = Source.kafka(src.get("topic").asText(), (int) integer(src, "source.partition", "partition", Integer.MAX_VALUE),
                integer(src, "source.offset", "offset", Long.MAX_VALUE));
        OptionalInt partition = root.has("partition")
                ? OptionalInt.of((int) integer(root, "partition", "partition", Integer.MAX_VALUE)) : OptionalInt.empty();
        return new TruncateMarker(entity, t, source, partition);
    }

    private static long integer(JsonNode parent, String path, String name, long max) {
        JsonNode n = parent.get(name);
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < 0 || n.longValue() > max) {
            throw new IllegalArgumentException("truncate marker: field '" + path + "' missing or not a non-negative integer");
        }
        return n.longValue();
    }
}
