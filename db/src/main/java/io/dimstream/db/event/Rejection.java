package io.dimstream.db.event;

/** An input the writer refused, with the reason and where it came from. Never silently dropped. */
public record Rejection(Source source, String reason) {

    @Override
    public String toString() {
        return source + ": " + reason;
    }
}
