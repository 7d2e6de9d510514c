package io.dimstream.admin.web;

/** Something the request names that does not exist (an entity, a key). */
public final class NotFound extends RuntimeException {
    public NotFound(String message) {
        super(message);
    }
}
