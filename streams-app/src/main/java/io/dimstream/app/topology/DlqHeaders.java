package io.dimstream.app.topology;

/** Headers dimstream adds to a dead-letter record (values are UTF-8 text), beside the record's own headers. */
public final class DlqHeaders {

    /** Why the record was refused. */
    public static final String ERROR = "dimstream.error";
    /** The entity whose pipeline refused it. */
    public static final String ENTITY = "dimstream.entity";
    /**
     * Where the record was read: the entity's source topic, or (for a failure in the classify step) the
     * entity's repartition topic. Together with the partition and offset this points at the full record,
     * also when the DLQ copy was cut to fit.
     */
    public static final String SOURCE_TOPIC = "dimstream.source.topic";
    public static final String SOURCE_PARTITION = "dimstream.source.partition";
    public static final String SOURCE_OFFSET = "dimstream.source.offset";
    /**
     * Present only when the DLQ copy is not the whole record, because the whole one would not fit the
     * DLQ topic's size limit: what was cut, a comma-separated list of {@code value} (only its first bytes
     * kept), {@code headers} (the record's own headers dropped), {@code key} (only its first bytes kept).
     */
    public static final String TRUNCATED = "dimstream.truncated";
    /** With {@link #TRUNCATED}: the size of the record's whole value, in bytes. */
    public static final String ORIGINAL_VALUE_SIZE = "dimstream.original.value.size";
    /** With {@link #TRUNCATED} {@code key}: the size of the record's whole key, in bytes. */
    public static final String ORIGINAL_KEY_SIZE = "dimstream.original.key.size";

    private DlqHeaders() {
    }
}
