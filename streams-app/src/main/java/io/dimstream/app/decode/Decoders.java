package io.dimstream.app.decode;

import io.dimstream.config.CdcOptions;
import io.dimstream.config.ConfigException;
import io.dimstream.config.EntityConfig;
import java.lang.reflect.InvocationTargetException;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The decoder an entity's {@code format:} names, reading its events' time as its {@code event-time}
 * says and, for the Debezium formats, its truncates as {@code on-truncate} says. The streaming
 * topology and replays both decode through {@link #forEntity} (by way of
 * {@link io.dimstream.app.topology.EntityPipeline#of}), so they read a record alike; a re-driven
 * record goes through the topology again.
 */
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
        TimeField timeField = TimeField.of(entity);
        return switch (entity.format()) {
            case JSON -> new NativeJsonDecoder(entity.key(), timeField);
            case SEED_JSON -> new SeedJsonDecoder(seedJsonOptions(entity));
            case DEBEZIUM_JSON -> new DebeziumJsonDecoder(debezium(entity, timeField));
            case AVRO -> new AvroEventDecoder(valueDeserializer(entity), entity.key(), timeField);
            case DEBEZIUM_AVRO -> new DebeziumAvroDecoder(valueDeserializer(entity), debezium(entity, timeField));
        };
    }

    /** {@code event-time: field NAME} of a seed-json entity is its {@code time-field: NAME} (the config refuses both). */
    private static io.dimstream.config.SeedJsonOptions seedJsonOptions(EntityConfig entity) {
        io.dimstream.config.SeedJsonOptions o = entity.seedJson();
        CdcOptions.EventTime t = entity.cdc().eventTime();
        return t.kind() == CdcOptions.EventTime.Kind.FIELD
                ? new io.dimstream.config.SeedJsonOptions(o.opField(), t.field(), o.upsertValues(), o.deleteValues())
                : o;
    }

    /** The envelope reading of a Debezium entity: its {@code event-time} and {@code on-truncate}. */
    private static DebeziumEnvelope debezium(EntityConfig entity, TimeField timeField) {
        CdcOptions.EventTime t = entity.cdc().eventTime();
        if (t.kind() == CdcOptions.EventTime.Kind.DEFAULT) {
            t = CdcOptions.EventTime.SOURCE_TS_MS; // an entity made in code without the format's defaults
        }
        return new DebeziumEnvelope(t, timeField, entity.cdc().onTruncate());
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
