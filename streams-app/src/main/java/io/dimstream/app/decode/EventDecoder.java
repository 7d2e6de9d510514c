package io.dimstream.app.decode;

/**
 * Turns one Kafka record of an entity's source topic into a writer {@link io.dimstream.db.event.Event},
 * a deliberate skip, or an error fit for the dead-letter topic. Never throws for bad input: every
 * problem becomes {@link Decoded.Failed} with a reason that names it. Throws only when the input was
 * not judged because something it needs is away for now
 * ({@link io.dimstream.schemas.registry.SchemaRegistryUnavailableException}): the record must then be
 * read again later, not dead-lettered.
 *
 * <p>One instance serves every stream thread, so implementations must be thread-safe (the JSON
 * decoders are stateless; the Avro ones rely on their deserializer being thread-safe, as Kafka's and
 * Confluent's are).
 */
@FunctionalInterface
public interface EventDecoder {

    /**
     * @param key               the record key, may be null
     * @param value             the record value, null for a tombstone
     * @param recordTimestampMs the record's timestamp (a tombstone's delete time in the native format)
     * @param topic             where the record was read, kept as the event's lineage
     * @param partition         its partition
     * @param offset            its offset, also the event's {@code seq} (the sink re-stamps it)
     */
    Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset);

    /** The decoder of the entity's format under the steps that adjust its events (dropped fields, unchanged values). */
    default EventDecoder format() {
        return this;
    }
}
