package io.dimstream.schemas.registry;

import java.util.Objects;
import org.apache.avro.Schema;

/** One version of a subject: its global schema id, its version number in the subject (from 1), the schema. */
public record RegisteredSchema(int id, int version, Schema schema) {

    public RegisteredSchema {
        Objects.requireNonNull(schema, "schema");
    }
}
