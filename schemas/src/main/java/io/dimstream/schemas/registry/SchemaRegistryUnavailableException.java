package io.dimstream.schemas.registry;

/**
 * The schema registry could not answer now: unreachable, timed out, a 5xx, a 408 or 429, or it refused
 * the credentials (401, 403). Unlike its parent, this says nothing about the record being read: the same
 * request can succeed later (the registry restarts, an operator fixes {@code basic.auth.user.info}), so
 * a record whose schema could not be fetched for this reason must be read again later, never set aside
 * as undecodable.
 */
public class SchemaRegistryUnavailableException extends SchemaRegistryException {

    private static final long serialVersionUID = 1L;

    public SchemaRegistryUnavailableException(String message) {
        super(message);
    }

    public SchemaRegistryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
