package io.dimstream.schemas.registry;

/** The registry has no schema with this id (Confluent error code 40403 on {@code GET /schemas/ids/{id}}). */
public class UnknownSchemaIdException extends SchemaRegistryException {

    private static final long serialVersionUID = 1L;

    private final int id;

    public UnknownSchemaIdException(int id, String message) {
        super(message);
        this.id = id;
    }

    /** The id that was asked for. */
    public int id() {
        return id;
    }
}
