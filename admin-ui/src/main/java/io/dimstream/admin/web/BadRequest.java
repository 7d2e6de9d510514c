package io.dimstream.admin.web;

/** A request parameter the admin refuses; the message names the parameter and what it accepts. */
public final class BadRequest extends RuntimeException {
    public BadRequest(String message) {
        super(message);
    }
}
