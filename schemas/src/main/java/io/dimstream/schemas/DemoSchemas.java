package io.dimstream.schemas;

import java.io.IOException;
import java.io.InputStream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * The Avro schemas shipped in {@code src/main/avro}, loaded from the classpath.
 *
 * <p>Each {@code .avsc} file is self-contained (the envelopes inline the {@code Customer} record),
 * so any one of them can be registered on its own, for example with a console producer's schema
 * file option. Each accessor parses its file with a fresh {@link Schema.Parser}.
 */
public final class DemoSchemas {

    private DemoSchemas() {
    }

    /** {@code io.dimstream.demo.Customer}: the demo entity's row image. */
    public static Schema customer() {
        return load("customer.avsc");
    }

    /** {@code io.dimstream.demo.CustomerChange}: dimstream's native event (op, event_time, data) as Avro. */
    public static Schema customerChange() {
        return load("customer_change.avsc");
    }

    /** {@code io.dimstream.demo.debezium.Envelope}: a Debezium-style envelope around {@code Customer}. */
    public static Schema customerDebeziumEnvelope() {
        return load("customer_debezium_envelope.avsc");
    }

    /** {@code io.dimstream.dlq.DlqEnvelope}: what a dead-letter record's headers carry, as a record. */
    public static Schema dlqEnvelope() {
        return load("dlq_envelope.avsc");
    }

    static Schema load(String resource) {
        try (InputStream in = DemoSchemas.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Avro schema " + resource + " is not on the classpath");
            }
            return new Schema.Parser().parse(in);
        } catch (IOException | SchemaParseException e) {
            throw new IllegalStateException("cannot load Avro schema " + resource + " from the classpath: "
                    + e.getMessage(), e);
        }
    }
}
