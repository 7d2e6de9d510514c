package io.dimstream.schemas.serde;

/** Confluent's default subject naming: a topic's values go under {@code <topic>-value}, its keys under {@code <topic>-key}. */
public final class TopicNameStrategy {

    private TopicNameStrategy() {
    }

    public static String subject(String topic, boolean isKey) {
        return topic + (isKey ? "-key" : "-value");
    }
}
