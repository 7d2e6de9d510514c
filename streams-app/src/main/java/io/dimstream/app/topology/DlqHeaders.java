package io.dimstream.app.topology;

/** Headers dimstream adds to a dead-letter record (values are UTF-8 text), beside the record's own headers. */
public final class DlqHeaders {

    /** Why the record was refused. */
    public static final String ERROR = "dimstream.error";
    /** The entity whose pipeline refused it. */
    public static final String ENTITY = "dimstream.entity";
    public static final String SOURCE_TOPIC = "dimstream.source.topic";
    public static final String SOURCE_PARTITION = "dimstream.source.partition";
    public static final String SOURCE_OFFSET = "dimstream.source.offset";

    private DlqHeaders() {
    }
}
