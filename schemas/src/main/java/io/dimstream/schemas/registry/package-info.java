/**
 * A small schema registry client: what a Confluent-wire-format serde needs and nothing more
 * (register, look up, schema by id, latest version of a subject).
 *
 * <ul>
 *   <li>{@link io.dimstream.schemas.registry.HttpSchemaRegistryClient}: {@code http(s)://} URLs, speaking the
 *       Confluent-compatible REST API (Confluent Schema Registry, Redpanda, Apicurio's ccompat API, Karapace)
 *       with {@code java.net.http}; optional basic auth from {@code basic.auth.user.info}; schemas by id
 *       cached for ever, since ids are immutable.</li>
 *   <li>{@link io.dimstream.schemas.registry.MockSchemaRegistry}: {@code mock://SCOPE} URLs, in memory,
 *       shared by every client of a scope in the JVM, for tests and the demo.</li>
 *   <li>{@link io.dimstream.schemas.registry.SchemaRegistries#forUrl}: picks one by URL.</li>
 * </ul>
 *
 * <p>Errors: {@link io.dimstream.schemas.registry.UnknownSchemaIdException} (404 for an id: the record
 * names a schema that does not exist), {@link io.dimstream.schemas.registry.SchemaRegistryUnavailableException}
 * (unreachable, timed out, 5xx, 408, 429, or the credentials refused with 401/403: may pass, retry), and
 * {@link io.dimstream.schemas.registry.SchemaRegistryException} for any other refusal.
 *
 * <p>Not supported: several registry URLs (fail-over), bearer or mTLS-specific auth settings, schema
 * references, and schema types other than Avro.
 */
package io.dimstream.schemas.registry;
