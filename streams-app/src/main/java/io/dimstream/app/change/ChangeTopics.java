package io.dimstream.app.change;

/** The one place the changes topic of an entity is named: the topology writes it, the sink reads it. */
public final class ChangeTopics {

    private ChangeTopics() {
    }

    /** {@code dimstream.<entity>.changes}. */
    public static String name(String entity) {
        return "dimstream." + entity + ".changes";
    }
}
