package io.dimstream.schemas.registry;

/** The schema registry could not be reached, refused a request, or answered something unexpected. */
public class SchemaRegistryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SchemaRegistryException(String message) {
        super(message);
    }

    public SchemaRegistryException(String message, Throwable cause) {
        super(message, cause);
    }
}
