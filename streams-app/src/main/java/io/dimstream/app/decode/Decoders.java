package io.dimstream.app.decode;

import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.ConfigException;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.SeedJsonOptions;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Unchanged;
import java.lang.reflect.InvocationTargetException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decoder an entity's {@code format:} names, reading its events' time as its {@code event-time}
 * says and, for the Debezium formats, its truncates as {@code on-truncate} says. The streaming
 * topology and replays both decode through {@link #forEntity} (by way of
 * {@link io.dimstream.app.topology.EntityPipeline#of}), so they read a record alike; a re-driven
 * record goes through the topology again.
 */
public final class Decoders {

    private static final Logger LOG = LoggerFactory.getLogger(Decoders.class);

    private Decoders() {
    }

    /**
     * @throws ConfigException when an Avro format's {@code value-deserializer} cannot be loaded,
     *                         instantiated or configured
     */
    public static EventDecoder forEntity(EntityConfig entity) {
        return adjust(byFormat(entity), fieldRules(entity));
    }

    /**
     * What the entity's config says about the fields of a decoded event, whatever its format or where
     * it came from (a record of the entity's topic, a line or row of {@code load}): {@code except:}
     * fields dropped, undeclared fields dropped ({@link #dropsUndeclaredFields}), and the values that
     * mean "unchanged" marked ({@link #unchangedValues}). Columns added while running are
     * {@link NewFields}' part.
     */
    public static UnaryOperator<Decoded> fieldRules(EntityConfig entity) {
        CdcOptions cdc = entity.cdc();
        UnaryOperator<Decoded> rules = UnaryOperator.identity();
        if (!cdc.except().isEmpty()) {
            rules = then(rules, without(Set.copyOf(cdc.except())));
        }
        if (dropsUndeclaredFields(entity)) {
            rules = then(rules, undeclaredFieldsDropped(entity.columns().keySet()));
        }
        if (cdc.unavailableValue().isPresent() || cdc.ignoreNullUpdates().any() || cdc.schemaEvolution() == CdcOptions.SchemaEvolution.LENIENT) {
            EntitySpec spec = entity.toEntitySpec();
            rules = then(rules, unchangedValues(cdc, spec.attributes(), spec.key(), entity.name()));
        }
        return rules;
    }

    private static UnaryOperator<Decoded> then(UnaryOperator<Decoded> first, UnaryOperator<Decoded> next) {
        return d -> next.apply(first.apply(d));
    }

    /**
     * Whether the entity's decoder drops the fields of a record that are no columns: unless it rejects
     * them ({@code undeclared-columns: reject}, the validator refuses the record naming the field) or
     * makes them columns while running ({@code new-columns: tracked} or {@code type1}, the topology
     * passes them on).
     */
    static boolean dropsUndeclaredFields(EntityConfig entity) {
        return !entity.rejectUndeclaredColumns() && !entity.cdc().evolvesColumns();
    }

    /** {@code except:}: the named source fields are dropped from every decoded event. */
    static UnaryOperator<Decoded> without(Set<String> fields) {
        return d -> {
            if (d instanceof Decoded.Ok ok && fields.stream().anyMatch(ok.event().data()::containsKey)) {
                Event e = ok.event();
                Map<String, Object> kept = new LinkedHashMap<>(e.data());
                kept.keySet().removeAll(fields);
                return ok.with(new Event(e.op(), e.eventTime(), kept, e.seq(), e.source(), e.badTimeReason()));
            }
            return d;
        };
    }

    /** Columns already reported as no longer sent, per entity: logged once each. */
    private static final Set<String> REPORTED_MISSING = ConcurrentHashMap.newKeySet();

    /**
     * Marks the values of an upsert that mean "unchanged" ({@link Unchanged#VALUE}, resolved by the
     * writer from the key's event before this one): the {@code unavailable-value} placeholder, as
     * text, as the bytes of its UTF-8 text (Debezium's form for a binary column) or as their base64
     * text (that form in JSON); and, for the {@code ignore-null-updates} columns, NULL or a missing
     * field; with {@code schema-evolution: lenient}, any attribute whose field is missing (the source
     * dropped the column: its value is carried on, no version is made for it; logged once per
     * column). The placeholder is unchanged in any field but a key part, also one the config does not
     * declare: a column added while running, or a field about to become one ({@link NewFields}).
     * Deletes and key columns are left alone (a key part that is the placeholder is refused by the
     * validator).
     */
    static UnaryOperator<Decoded> unchangedValues(CdcOptions cdc, List<String> attributes, List<String> key, String entity) {
        boolean lenient = cdc.schemaEvolution() == CdcOptions.SchemaEvolution.LENIENT;
        String placeholder = cdc.unavailableValue().orElse(null);
        byte[] placeholderBytes = placeholder == null ? null : placeholder.getBytes(StandardCharsets.UTF_8);
        String placeholderBase64 = placeholder == null ? null : Base64.getEncoder().encodeToString(placeholderBytes);
        CdcOptions.NullUpdates nullUpdates = cdc.ignoreNullUpdates();
        Set<String> keyOrAttribute = new java.util.HashSet<>(attributes);
        keyOrAttribute.addAll(key);
        return d -> {
            if (!(d instanceof Decoded.Ok ok) || ok.event().op() != Op.UPSERT) {
                return d;
            }
            Event e = ok.event();
            Map<String, Object> data = null;
            for (String a : attributes) {
                Object v = e.data().get(a);
                boolean missing = v == null && lenient && !e.data().containsKey(a);
                if (missing && REPORTED_MISSING.add(entity + "\u0000" + a)) {
                    LOG.warn("entity {}: the source sends no field '{}' any more (first seen at {}); schema-evolution: lenient "
                            + "carries its last value on", entity, a, e.source());
                }
                boolean unchanged = v == null
                        ? missing || nullUpdates.applies(a)
                        : placeholder != null && isPlaceholder(v, placeholder, placeholderBytes, placeholderBase64);
                if (unchanged) {
                    if (data == null) {
                        data = new LinkedHashMap<>(e.data());
                    }
                    data.put(a, Unchanged.VALUE);
                }
            }
            if (placeholder != null) {
                for (Map.Entry<String, Object> f : e.data().entrySet()) {
                    if (f.getValue() != null && !keyOrAttribute.contains(f.getKey())
                            && isPlaceholder(f.getValue(), placeholder, placeholderBytes, placeholderBase64)) {
                        if (data == null) {
                            data = new LinkedHashMap<>(e.data());
                        }
                        data.put(f.getKey(), Unchanged.VALUE);
                    }
                }
            }
            return data == null ? d : ok.with(new Event(e.op(), e.eventTime(), data, e.seq(), e.source(), e.badTimeReason()));
        };
    }

    /** Whether {@code v} is the placeholder: as text, as the bytes of its UTF-8 text, or as their base64 text. */
    private static boolean isPlaceholder(Object v, String placeholder, byte[] placeholderBytes, String placeholderBase64) {
        return placeholder.equals(v) || placeholderBase64.equals(v) || v instanceof byte[] b && Arrays.equals(b, placeholderBytes)
                || v instanceof ByteBuffer bb && bb.equals(ByteBuffer.wrap(placeholderBytes));
    }

    /**
     * {@code undeclared-columns: ignore} (the default) without {@code new-columns}: the decoded event
     * keeps only the entity's columns, and names the fields it lost ({@link Decoded.Ok#ignored}, which
     * the topology counts and logs), so a source with more columns than the entity declares (a
     * Debezium row image, a wide Avro record, a column added at the source) goes on landing.
     */
    static UnaryOperator<Decoded> undeclaredFieldsDropped(Set<String> columns) {
        return d -> {
            if (d instanceof Decoded.Ok ok && !columns.containsAll(ok.event().data().keySet())) {
                Event e = ok.event();
                Map<String, Object> kept = new LinkedHashMap<>(e.data());
                Set<String> dropped = new TreeSet<>(kept.keySet());
                dropped.removeAll(columns);
                kept.keySet().retainAll(columns);
                return ok.withIgnored(new Event(e.op(), e.eventTime(), kept, e.seq(), e.source(), e.badTimeReason()), dropped);
            }
            return d;
        };
    }

    /** A format's decoder with a step applied to what it decodes. */
    private record Adjusted(EventDecoder inner, UnaryOperator<Decoded> step) implements EventDecoder {
        @Override
        public Decoded decode(byte[] key, byte[] value, long recordTimestampMs, String topic, int partition, long offset) {
            return step.apply(inner.decode(key, value, recordTimestampMs, topic, partition, offset));
        }

        @Override
        public EventDecoder format() {
            return inner.format();
        }
    }

    private static EventDecoder adjust(EventDecoder decoder, UnaryOperator<Decoded> step) {
        return new Adjusted(decoder, step);
    }

    private static EventDecoder byFormat(EntityConfig entity) {
        if (entity.snapshot()) {
            return new SnapshotRowDecoder(entity.snapshotTimeField());
        }
        TimeField timeField = TimeField.of(entity);
        return switch (entity.format()) {
            case JSON -> new NativeJsonDecoder(entity.key(), timeField);
            case SEED_JSON -> new SeedJsonDecoder(seedJsonOptions(entity));
            case DEBEZIUM_JSON -> new DebeziumJsonDecoder(debezium(entity, timeField), debeziumValues(entity));
            case AVRO -> new AvroEventDecoder(valueDeserializer(entity), entity.key(), timeField);
            case DEBEZIUM_AVRO -> new DebeziumAvroDecoder(valueDeserializer(entity), debezium(entity, timeField), debeziumValues(entity));
        };
    }

    /** {@code event-time: field NAME} of a seed-json entity is its {@code time-field: NAME} (the config refuses both). */
    private static SeedJsonOptions seedJsonOptions(EntityConfig entity) {
        SeedJsonOptions o = entity.seedJson();
        CdcOptions.EventTime t = entity.cdc().eventTime();
        return t.kind() == CdcOptions.EventTime.Kind.FIELD
                ? new SeedJsonOptions(o.opField(), t.field(), o.upsertValues(), o.deleteValues())
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

    /** The Debezium formats' conversions: the entity's {@code encodings:}, its unavailable-value placeholder. */
    static DebeziumValues debeziumValues(EntityConfig entity) {
        return new DebeziumValues(entity.cdc().encodings(), entity.cdc().unavailableValue().orElse(null), entity.columns(),
                dropsUndeclaredFields(entity) ? entity.columns().keySet() : null);
    }

    /** The entity's {@code value-deserializer}, created by its no-argument constructor and configured with {@code deserializer-config}. */
    public static Deserializer<GenericRecord> valueDeserializer(EntityConfig entity) {
        return deserializer(entity.avro(), false, "entity \"" + entity.name() + "\": value-deserializer: ");
    }

    /**
     * A {@code value-deserializer} of {@code avro}'s class and settings, configured for record keys or
     * values; {@code at} starts its problems.
     */
    @SuppressWarnings("unchecked")
    public static Deserializer<GenericRecord> deserializer(io.dimstream.config.model.AvroOptions avro, boolean isKey, String at) {
        String className = avro.valueDeserializer();
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
            d.configure(avro.deserializerConfig(), isKey);
        } catch (RuntimeException e) {
            throw new ConfigException(at + "configuring " + className + " with deserializer-config "
                    + avro.deserializerConfig() + " failed: " + e.getMessage());
        }
        return (Deserializer<GenericRecord>) d;
    }
}
