package io.dimstream.schemas.serde;

import io.dimstream.schemas.registry.SchemaRegistries;
import io.dimstream.schemas.registry.SchemaRegistryClient;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings of {@link AvroWireSerializer} and {@link AvroWireDeserializer}, read from the map Kafka
 * hands to {@code configure} (the producer's, consumer's or Streams app's own config: other keys there
 * are ignored). The names of the first three are Confluent's, so one config map serves either serde.
 */
public final class AvroWireConfig extends AbstractConfig {

    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String AUTO_REGISTER_SCHEMAS = "auto.register.schemas";
    public static final String BASIC_AUTH_USER_INFO = SchemaRegistries.BASIC_AUTH_USER_INFO;
    public static final String READER_SCHEMA = "dimstream.avro.reader.schema";
    public static final String KEY_READER_SCHEMA = "dimstream.avro.key.reader.schema";
    public static final String REGISTRY_RETRY_MS = "dimstream.schema.registry.retry.ms";
    /**
     * 20 s: long enough to ride out a registry restart or a load balancer's failover without a stream
     * thread dying, short enough that one record's retries (plus one request in flight, at most
     * {@code HttpSchemaRegistryClient.REQUEST_TIMEOUT_SECONDS}) stay far below Kafka Streams' main
     * consumer {@code max.poll.interval.ms} (300 s), so the thread is never thrown out of its group
     * for waiting. A longer outage is the stream thread supervisor's to ride out.
     */
    public static final long DEFAULT_REGISTRY_RETRY_MS = 20_000;

    private static final ConfigDef DEFINITION = new ConfigDef()
            .define(SCHEMA_REGISTRY_URL, Type.STRING, null, Importance.HIGH,
                    "The schema registry: http(s)://host:port of a Confluent-compatible registry, or mock://SCOPE "
                            + "for the in-memory registry shared by every client of SCOPE in the JVM. Required.")
            .define(AUTO_REGISTER_SCHEMAS, Type.BOOLEAN, true, Importance.MEDIUM,
                    "Serializer: register a record's schema under the subject when it is new there. When false, "
                            + "the schema must already be registered under the subject.")
            .define(BASIC_AUTH_USER_INFO, Type.PASSWORD, null, Importance.MEDIUM,
                    "HTTP basic auth for the registry, as user:password.")
            .define(READER_SCHEMA, Type.STRING, null, Importance.MEDIUM,
                    "Value deserializer: an Avro schema (JSON text) to decode into, resolved against each record's "
                            + "writer schema from the registry. Unset: records are decoded with their writer schema.")
            .define(KEY_READER_SCHEMA, Type.STRING, null, Importance.LOW,
                    "Key deserializer: as " + READER_SCHEMA + ", for record keys.")
            .define(REGISTRY_RETRY_MS, Type.LONG, DEFAULT_REGISTRY_RETRY_MS, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Deserializer: how long to keep asking for a writer schema while the registry is unavailable "
                            + "(unreachable, timing out, 5xx, refusing the credentials), with backoff, before giving up "
                            + "on the record for now (it is read again later, never dead-lettered). 0: ask once.");

    public AvroWireConfig(Map<String, ?> configs) {
        super(DEFINITION, configs, false);
    }

    /** The definitions, with their defaults and descriptions, for documentation. */
    public static ConfigDef definition() {
        return new ConfigDef(DEFINITION);
    }

    /** The registry {@value #SCHEMA_REGISTRY_URL} names; a {@link ConfigException} naming the key if it is missing or wrong. */
    public SchemaRegistryClient registry() {
        String url = getString(SCHEMA_REGISTRY_URL);
        if (url == null || url.isBlank()) {
            throw new ConfigException("missing required configuration \"" + SCHEMA_REGISTRY_URL
                    + "\": the schema registry's URL (http://host:8081, or mock://SCOPE in tests)");
        }
        try {
            return SchemaRegistries.forUrl(url, originals());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(SCHEMA_REGISTRY_URL + ": " + e.getMessage());
        }
    }

    /** {@value #REGISTRY_RETRY_MS}: how long one record waits for an unavailable registry. */
    public java.time.Duration registryRetry() {
        return java.time.Duration.ofMillis(getLong(REGISTRY_RETRY_MS));
    }

    public boolean autoRegisterSchemas() {
        return getBoolean(AUTO_REGISTER_SCHEMAS);
    }

    /** The reader schema for keys ({@value #KEY_READER_SCHEMA}) or values ({@value #READER_SCHEMA}), if set. */
    public Optional<Schema> readerSchema(boolean isKey) {
        String key = isKey ? KEY_READER_SCHEMA : READER_SCHEMA;
        String text = getString(key);
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Schema.Parser().parse(text));
        } catch (SchemaParseException e) {
            throw new ConfigException(key + " is not a valid Avro schema: " + e.getMessage());
        }
    }
}
