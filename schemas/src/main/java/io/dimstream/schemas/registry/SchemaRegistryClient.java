package io.dimstream.schemas.registry;

import java.util.Optional;
import java.util.OptionalInt;
import org.apache.avro.Schema;

/**
 * The few schema registry operations a Confluent-wire-format Avro serde needs.
 *
 * <p>Schema ids are global and immutable: once an id is known its schema never changes, so
 * implementations may cache {@link #getById} for ever. Failures are {@link SchemaRegistryException}s;
 * an id the registry does not know is an {@link UnknownSchemaIdException}.
 */
public interface SchemaRegistryClient {

    /**
     * Registers {@code schema} under {@code subject} (a new version if it is new to the subject) and
     * returns its id. Idempotent: registering the same schema again returns the same id.
     */
    int register(String subject, Schema schema);

    /**
     * The id of {@code schema} if it is already registered under {@code subject} (any version), without
     * registering it: what a serializer with {@code auto.register.schemas=false} needs.
     */
    OptionalInt lookup(String subject, Schema schema);

    /** The schema with this id; {@link UnknownSchemaIdException} if the registry has none. */
    Schema getById(int id);

    /** The newest version registered under {@code subject}, or empty if the subject has none. */
    Optional<RegisteredSchema> latest(String subject);
}
