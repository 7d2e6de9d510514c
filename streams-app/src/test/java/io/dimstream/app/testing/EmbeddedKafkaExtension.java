package io.dimstream.app.testing;

import io.dimstream.app.kafka.EmbeddedKafka;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One embedded broker per test JVM, shared by every test class that registers this extension:
 * started before the first of them, closed when the JVM's test run ends (JUnit's root store closes
 * it). A KRaft broker costs about 3 s to start here, so each class that shares it saves that.
 * Register it as {@code @RegisterExtension static final EmbeddedKafkaExtension KAFKA = new
 * EmbeddedKafkaExtension();} and reach the broker with {@link #get()}.
 *
 * <p>Sharing means: topics, consumer groups, transactional ids and application ids must be the
 * test's own (every user here names them after its class or entity, as tables are in the shared
 * test database). A test that stops, restarts or reconfigures its broker (broker restart, SASL,
 * retention overrides) starts an {@link EmbeddedKafka} of its own instead.
 */
public final class EmbeddedKafkaExtension implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(EmbeddedKafkaExtension.class);

    private EmbeddedKafka kafka;

    @Override
    public void beforeAll(ExtensionContext context) {
        kafka = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent("broker", k -> new SharedBroker(EmbeddedKafka.start()), SharedBroker.class).kafka;
    }

    /** The running broker. */
    public EmbeddedKafka get() {
        if (kafka == null) {
            throw new IllegalStateException("the embedded broker is there only from beforeAll of the test class on");
        }
        return kafka;
    }

    /** Closed by JUnit with the root store, at the end of the test run. */
    private record SharedBroker(EmbeddedKafka kafka) implements AutoCloseable {
        @Override
        public void close() {
            kafka.close();
        }
    }
}
