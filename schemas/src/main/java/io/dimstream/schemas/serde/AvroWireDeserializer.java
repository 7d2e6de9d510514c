package io.dimstream.schemas.serde;

import io.dimstream.schemas.registry.SchemaRegistryClient;
import io.dimstream.schemas.registry.SchemaRegistryException;
import io.dimstream.schemas.registry.SchemaRegistryUnavailableException;
import io.dimstream.schemas.registry.UnknownSchemaIdException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads a Confluent-wire-format record ({@code 0x00}, 4-byte big-endian schema id, Avro binary) into a
 * {@link GenericRecord}, fetching the writer schema by id from the registry.
 *
 * <p>With a reader schema ({@code dimstream.avro.reader.schema} for values,
 * {@code dimstream.avro.key.reader.schema} for keys) records are decoded with Avro schema resolution:
 * fields the writer added are dropped, fields the reader added take their defaults. Without one,
 * records come out in their writer's schema.
 *
 * <p>Values are Avro's raw generic representations ({@code Utf8} strings, {@code long} timestamps,
 * {@code ByteBuffer} decimals), as Confluent's deserializer gives them by default, every string a
 * {@code Utf8} holding its bytes as written ({@link Utf8DatumReader}, even under {@code avro.java.string}); see
 * {@code io.dimstream.schemas.AvroValues} for plain Java values. A null value is a tombstone and
 * deserializes to null. Everything else that cannot be read is a {@link SerializationException}.
 *
 * <p>A registry that cannot answer now ({@link SchemaRegistryUnavailableException}: unreachable, timing
 * out, 5xx, refusing the credentials) is asked again with backoff ({@value #FIRST_BACKOFF_MS} ms doubling
 * to {@value #MAX_BACKOFF_MS} ms) for up to {@code dimstream.schema.registry.retry.ms} (default 20 s); then
 * the {@link SchemaRegistryUnavailableException} itself is thrown, not a {@link SerializationException}:
 * the bytes were never judged, so the caller must read the record again later instead of setting it
 * aside as undecodable. Only bytes that are truly not readable are {@link SerializationException}s: no
 * magic byte, too short, a schema id the registry does not know (404), Avro that does not parse.
 */
public class AvroWireDeserializer implements Deserializer<GenericRecord> {

    static final long FIRST_BACKOFF_MS = 200;
    static final long MAX_BACKOFF_MS = 2_000;

    private SchemaRegistryClient registry;
    private Schema readerSchema;
    private Duration registryRetry = Duration.ofMillis(AvroWireConfig.DEFAULT_REGISTRY_RETRY_MS);
    private final Map<Integer, DatumReader<GenericRecord>> readersByWriterId = new ConcurrentHashMap<>();

    /** For Kafka to create by class name; {@link #configure} must be called before use. */
    public AvroWireDeserializer() {
    }

    /** A deserializer over this registry that decodes with each record's writer schema. */
    public AvroWireDeserializer(SchemaRegistryClient registry) {
        this(registry, null);
    }

    /** A deserializer over this registry that decodes into {@code readerSchema} ({@code null}: the writer's). */
    public AvroWireDeserializer(SchemaRegistryClient registry, Schema readerSchema) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.readerSchema = readerSchema;
    }

    /**
     * A deserializer over this registry that waits up to {@code registryRetry} per record for an
     * unavailable registry ({@link Duration#ZERO}: asks once).
     */
    public AvroWireDeserializer(SchemaRegistryClient registry, Schema readerSchema, Duration registryRetry) {
        this(registry, readerSchema);
        this.registryRetry = Objects.requireNonNull(registryRetry, "registryRetry");
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        AvroWireConfig config = new AvroWireConfig(configs);
        if (registry == null) {
            registry = config.registry();
        }
        config.readerSchema(isKey).ifPresent(schema -> this.readerSchema = schema);
        registryRetry = config.registryRetry();
        readersByWriterId.clear();
    }

    @Override
    public GenericRecord deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        if (registry == null) {
            throw new IllegalStateException("AvroWireDeserializer is not configured: call configure(...) with "
                    + AvroWireConfig.SCHEMA_REGISTRY_URL);
        }
        if (data.length > 0 && data[0] != WireFormat.MAGIC_BYTE) {
            throw new SerializationException(String.format(
                    "unknown magic byte 0x%02x (expected 0x00: not Confluent wire format)", data[0] & 0xff));
        }
        if (data.length < WireFormat.HEADER_LENGTH) {
            throw new SerializationException("record too short: " + data.length + " bytes (need at least "
                    + WireFormat.HEADER_LENGTH + ")");
        }
        int id = ByteBuffer.wrap(data, 1, 4).getInt();
        DatumReader<GenericRecord> reader = readerFor(id);
        BinaryDecoder decoder = DecoderFactory.get()
                .binaryDecoder(data, WireFormat.HEADER_LENGTH, data.length - WireFormat.HEADER_LENGTH, null);
        try {
            GenericRecord record = reader.read(null, decoder);
            if (!decoder.isEnd()) {
                throw new IOException("bytes left over after the record");
            }
            return record;
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot decode Avro with writer schema id " + id + ": "
                    + (e.getMessage() != null ? e.getMessage() : e.getClass().getName()), e);
        }
    }

    private DatumReader<GenericRecord> readerFor(int id) {
        DatumReader<GenericRecord> cached = readersByWriterId.get(id);
        if (cached != null) {
            return cached;
        }
        Schema writer;
        try {
            writer = writerSchema(id);
        } catch (UnknownSchemaIdException e) {
            throw new SerializationException("unknown schema id " + id, e);
        } catch (SchemaRegistryUnavailableException e) {
            throw e;
        } catch (SchemaRegistryException e) {
            throw new SerializationException("cannot fetch writer schema id " + id + ": " + e.getMessage(), e);
        }
        DatumReader<GenericRecord> reader = new Utf8DatumReader<>(writer, readerSchema != null ? readerSchema : writer);
        DatumReader<GenericRecord> previous = readersByWriterId.putIfAbsent(id, reader);
        return previous != null ? previous : reader;
    }

    /** The writer schema of {@code id}, asking again with backoff while the registry is unavailable. */
    private Schema writerSchema(int id) {
        long deadline = System.nanoTime() + registryRetry.toNanos();
        long backoff = FIRST_BACKOFF_MS;
        int attempts = 0;
        while (true) {
            attempts++;
            try {
                return registry.getById(id);
            } catch (SchemaRegistryUnavailableException e) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || Thread.currentThread().isInterrupted()) {
                    throw new SchemaRegistryUnavailableException("schema registry unavailable for writer schema id " + id
                            + " (" + attempts + (attempts == 1 ? " attempt" : " attempts") + " over "
                            + registryRetry.toMillis() + " ms): " + e.getMessage(), e);
                }
                try {
                    Thread.sleep(Math.min(backoff, Duration.ofNanos(left).toMillis() + 1));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new SchemaRegistryUnavailableException("interrupted while waiting for the schema registry "
                            + "(writer schema id " + id + "): " + e.getMessage(), e);
                }
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
            }
        }
    }
}
