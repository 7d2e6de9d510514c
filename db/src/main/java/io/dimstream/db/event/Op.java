package io.dimstream.db.event;

/** What an event does to its key. */
public enum Op {
    UPSERT, DELETE
}
