package io.dimstream.app.change;

/** How the topology classified an event against its key's newest event (DESIGN section 2). */
public enum ChangeClass {
    NEW, CHANGED, DELETED, UNCHANGED, LATE
}
