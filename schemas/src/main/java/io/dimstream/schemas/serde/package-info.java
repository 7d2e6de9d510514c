/**
 * Avro serdes in the Confluent wire format, behind Kafka's {@code Serializer}, {@code Deserializer} and
 * {@code Serde} interfaces.
 *
 * <h2>Wire format</h2>
 * <pre>
 *   byte 0      0x00                      magic byte
 *   bytes 1-4   schema id, big-endian int the writer schema's id in the registry
 *   bytes 5-    Avro binary               the record, encoded with that schema (no container file header)
 * </pre>
 * A record whose first byte is not {@code 0x00}, or that is shorter than 5 bytes, is not in this format.
 * A null value (a tombstone) stays null both ways. Subjects follow Confluent's default TopicNameStrategy:
 * {@code <topic>-value} and {@code <topic>-key}.
 *
 * <h2>Settings</h2>
 * {@link io.dimstream.schemas.serde.AvroWireConfig}: {@code schema.registry.url} (required),
 * {@code auto.register.schemas} (default true), {@code basic.auth.user.info} (these three are Confluent's
 * names), {@code dimstream.avro.reader.schema} / {@code dimstream.avro.key.reader.schema} (optional reader
 * schemas, Avro schema resolution against each record's writer schema), {@code dimstream.schema.registry.retry.ms}
 * (default 20000: how long the deserializer asks again, with backoff, while the registry is unavailable).
 *
 * <h2>Failures</h2>
 * Bytes that are not readable (no magic byte, too short, an id the registry answers 404 for, Avro that
 * does not parse with the writer schema) are {@code SerializationException}s: the record itself is bad.
 * A registry that cannot answer (unreachable, timing out, 5xx, refusing the credentials) is a
 * {@link io.dimstream.schemas.registry.SchemaRegistryUnavailableException} once the retry time has
 * passed: the record was not judged and must be read again later.
 *
 * <h2>Using Confluent's classes instead</h2>
 * Nothing in dimstream depends on these classes beyond the interfaces: the consuming side needs any
 * {@code Deserializer<GenericRecord>} whose output is a {@code GenericRecord}, and turns it into plain
 * values with {@code io.dimstream.schemas.AvroValues}, which also accepts values already converted to
 * Java types. To use Confluent's serde, put its jar ({@code io.confluent:kafka-avro-serializer} and its
 * dependencies) on the classpath, set dimstream's deserializer class setting to
 * {@code io.confluent.kafka.serializers.KafkaAvroDeserializer}, and pass {@code schema.registry.url} (plus
 * {@code basic.auth.credentials.source=USER_INFO} and {@code basic.auth.user.info} for basic auth) in the
 * consumer properties. Confluent's deserializer returns {@code GenericRecord}s unless
 * {@code specific.avro.reader=true}: leave that off. The bytes on the topic are the same either way, so
 * producers and consumers may mix the two implementations.
 */
package io.dimstream.schemas.serde;
