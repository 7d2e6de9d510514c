package io.dimstream.app.decode;

import io.dimstream.config.ConfigException;
import io.dimstream.config.EntityConfig;
import java.lang.reflect.InvocationTargetException;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Deserializer;

/** The decoder an entity's {@code format:} names. */
public final class Decoders {

    private Decoders() {
    }

    /**
     * @throws ConfigException when an Avro format's {@code value-deserializer} cannot be loaded,
     *                         instantiated or configured
     */
    public static EventDecoder forEntity(EntityConfig entity) {
        EventDecoder decoder = byFormat(entity);
        return entity.ignoreUndeclaredColumns() ? declaredColumnsOnly(decoder, entity.columns().keySet()) : decoder;
    }

    /**
     * {@code undeclared-columns: ignore}: the decoded event keeps only the entity's columns, so a
     * source with more columns than the entity declares (a Debezium row image, a wide Avro record)
     * does not send every record to the DLQ. Without it the validator refuses an unknown column,
     * naming it, which is the safer default: a typo in the config is seen at once.
     */
    static EventDecoder declaredColumnsOnly(EventDecoder decoder, java.util.Set<String> columns) {
        return (key, value, ts, topic, partition, offset) -> {
            Decoded d = decoder.decode(key, value, ts, topic, partition, offset);
            if (d instanceof Decoded.Ok ok && !columns.containsAll(ok.event().data().keySet())) {
                io.dimstream.db.event.Event e = ok.event();
                java.util.Map<String, Object> kept = new java.util.LinkedHashMap<>(e.data());
                kept.keySet().retainAll(columns);
                return Decoded.ok(new io.dimstream.db.event.Event(e.op(), e.eventTime(), kept, e.seq(), e.source(), e.badTimeReason()));
            }
            return d;
        };
    }

    private static EventDecoder byFormat(EntityConfig entity) {
        if (entity.snapshot()) {
            return new SnapshotRowDecoder(entity.snapshotTimeField());
        }
        return switch (entity.format()) {
            case JSON -> new NativeJsonDecoder(entity.key());
            case SEED_JSON -> new SeedJsonDecoder(entity.seedJson());
            case DEBEZIUM_JSON -> new DebeziumJsonDecoder(debeziumValues(entity));
            case AVRO -> new AvroEventDecoder(valueDeserializer(entity), entity.key());
            case DEBEZIUM_AVRO -> new DebeziumAvroDecoder(valueDeserializer(entity), debeziumValues(entity));
        };
    }

    /** The Debezium formats' conversions: the entity's {@code encodings:}, its unavailable-value placeholder. */
    static DebeziumValues debeziumValues(EntityConfig entity) {
        return new DebeziumValues(entity.cdc().encodings(), entity.cdc().unavailableValue().orElse(null), entity.columns(),
                entity.ignoreUndeclaredColumns() ? entity.columns().keySet() : null);
    }

    /** The entity's {@code value-deserializer}, created by its no-argument constructor and configured with {@code deserializer-config}. */
    @SuppressWarnings("unchecked")
    public static Deserializer<GenericRecord> valueDeserializer(EntityConfig entity) {
        String className = entity.avro().valueDeserializer();
        String at = "entity \"" + entity.name() + "\": value-deserializer: ";
        Object instance;
        try {
            instance = Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new ConfigException(at + "class " + className + " is not on the classpath");
        } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
            throw new ConfigException(at + "class " + className + " has no public no-argument constructor");
        } catch (InvocationTargetException e) {
            throw new ConfigException(at + "constructing " + className + " failed: " + e.getCause());
        }
        if (!(instance instanceof Deserializer<?> d)) {
            throw new ConfigException(at + "class " + className + " is not a " + Deserializer.class.getName());
        }
        try {
            d.configure(entity.avro().deserializerConfig(), false);
        } catch (RuntimeException e) {
            throw new ConfigException(at + "configuring " + className + " with deserializer-config "
                    + entity.avro().deserializerConfig() + " failed: " + e.getMessage());
        }
        return (Deserializer<GenericRecord>) d;
    }
}
