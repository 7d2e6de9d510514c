package io.dimstream.app.kafka;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One embedded broker per test class: started before its first test, closed after its last.
 * Register it as {@code @RegisterExtension static final EmbeddedKafkaExtension KAFKA = new
 * EmbeddedKafkaExtension();} and reach the broker with {@link #get()}.
 */
public final class EmbeddedKafkaExtension implements BeforeAllCallback, AfterAllCallback {

    private EmbeddedKafka kafka;

    @Override
    public void beforeAll(ExtensionContext context) {
        kafka = EmbeddedKafka.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (kafka != null) {
            kafka.close();
            kafka = null;
        }
    }

    /** The running broker. */
    public EmbeddedKafka get() {
        if (kafka == null) {
            throw new IllegalStateException("the embedded broker runs only between beforeAll and afterAll of the test class");
        }
        return kafka;
    }
}
