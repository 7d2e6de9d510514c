package io.dimstream.app.topology;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Builds the dead-letter copy of a record, the same way wherever it is refused (the decode step,
 * the processing and the production exception handlers): the record's key, value and own headers,
 * then the {@link DlqHeaders} (reason, entity, where it was read), cut to fit {@link RecordLimits}.
 *
 * <p>Cutting, only when the whole copy would not fit: first the value keeps only its first bytes;
 * should the key and headers alone not fit, the record's own headers go too, then the key is cut.
 * {@link DlqHeaders#TRUNCATED} says what was cut and {@link DlqHeaders#ORIGINAL_VALUE_SIZE} (and
 * {@link DlqHeaders#ORIGINAL_KEY_SIZE}) how big it was; the source topic, partition and offset headers
 * already point at the whole record. The reason itself is capped at {@value #MAX_REASON_CHARS}
 * characters, since an exception message may quote the whole input.
 */
final class DeadLetters {

    static final int MAX_REASON_CHARS = 2_000;

    private DeadLetters() {
    }

    /** A dead-letter record's key, value and headers, ready for the DLQ topic. */
    record DeadLetter(byte[] key, byte[] value, Headers headers) {
    }

    /**
     * @param sourceHeaders the record's own headers (copied, never changed), or null for none
     */
    static DeadLetter of(byte[] key, byte[] value, Headers sourceHeaders, String reason, String entity, String topic,
                         int partition, long offset, RecordLimits limits) {
        List<Header> own = sourceHeaders == null ? List.of() : Arrays.asList(sourceHeaders.toArray());
        List<Header> ours = List.of(
                header(DlqHeaders.ERROR, cap(reason)),
                header(DlqHeaders.ENTITY, entity),
                header(DlqHeaders.SOURCE_TOPIC, topic),
                header(DlqHeaders.SOURCE_PARTITION, Integer.toString(partition)),
                header(DlqHeaders.SOURCE_OFFSET, Long.toString(offset)));
        List<Header> all = concat(own, ours);
        if (limits.fits(RecordLimits.upperBound(key, value, all.toArray(Header[]::new)))) {
            return new DeadLetter(key, value, new RecordHeaders(all));
        }
        int valueSize = value == null ? 0 : value.length;
        // the value goes first: the source coordinates point at the whole record, and a reader of the
        // DLQ sees the reason, the key and the start of the value
        List<String> cut = new ArrayList<>(List.of("value"));
        List<Header> headers = concat(own, ours);
        int room = room(limits, key, headers, cut, valueSize, null);
        if (room < 0) {
            cut.add("headers");
            headers = new ArrayList<>(ours);
            room = room(limits, key, headers, cut, valueSize, null);
        }
        byte[] k = key;
        if (room < 0 && key != null) {
            cut.add("key");
            int keyRoom = room(limits, new byte[0], headers, cut, valueSize, key.length);
            k = Arrays.copyOf(key, Math.max(0, Math.min(key.length, keyRoom)));
            room = room(limits, k, headers, cut, valueSize, key.length);
        }
        byte[] v = value == null ? null : Arrays.copyOf(value, Math.max(0, Math.min(valueSize, room)));
        List<Header> out = new ArrayList<>(headers);
        out.addAll(truncationHeaders(cut, valueSize, cut.contains("key") ? key.length : null));
        return new DeadLetter(k, v, new RecordHeaders(out));
    }

    /** How many value bytes fit beside this key, these headers and the truncation headers. */
    private static int room(RecordLimits limits, byte[] key, List<Header> headers, List<String> cut, int valueSize, Integer keySize) {
        List<Header> all = new ArrayList<>(headers);
        all.addAll(truncationHeaders(cut, valueSize, keySize));
        return limits.maxRecordBytes() - RecordLimits.overhead(key, all.toArray(Header[]::new));
    }

    private static List<Header> truncationHeaders(List<String> cut, int valueSize, Integer keySize) {
        List<Header> h = new ArrayList<>(3);
        h.add(header(DlqHeaders.TRUNCATED, String.join(",", cut)));
        h.add(header(DlqHeaders.ORIGINAL_VALUE_SIZE, Integer.toString(valueSize)));
        if (keySize != null) {
            h.add(header(DlqHeaders.ORIGINAL_KEY_SIZE, Integer.toString(keySize)));
        }
        return h;
    }

    /** The reason of an exception a step threw: its class and message, as the {@code dimstream.error} header gives it. */
    static String reason(Throwable e) {
        return e.getClass().getName() + ": " + e.getMessage();
    }

    private static String cap(String reason) {
        String r = reason == null ? "(no reason given)" : reason;
        return r.length() <= MAX_REASON_CHARS ? r : r.substring(0, MAX_REASON_CHARS) + "... (" + r.length() + " characters)";
    }

    private static Header header(String name, String value) {
        return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
    }

    private static List<Header> concat(List<Header> a, List<Header> b) {
        List<Header> all = new ArrayList<>(a.size() + b.size());
        all.addAll(a);
        all.addAll(b);
        return all;
    }
}
