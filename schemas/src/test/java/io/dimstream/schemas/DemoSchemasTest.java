package io.dimstream.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.Schema.Field;
import org.apache.avro.Schema.Type;
import org.junit.jupiter.api.Test;

class DemoSchemasTest {

    private static List<String> fieldNames(Schema record) {
        return record.getFields().stream().map(Field::name).toList();
    }

    @Test
    void customerHasTheKeyAndOptionalAttributesDefaultingToNull() {
        Schema expected = SchemaBuilder.record("Customer").namespace("io.dimstream.demo").fields()
                .requiredString("customer_id")
                .optionalString("email")
                .optionalString("full_name")
                .optionalString("country")
                .optionalString("city")
                .optionalString("loyalty_tier")
                .optionalLong("last_login")
                .endRecord();

        assertThat(DemoSchemas.customer()).isEqualTo(expected);
    }

    @Test
    void customerChangeCarriesOpEventTimeInMicrosAndTheSameCustomer() {
        Schema change = DemoSchemas.customerChange();

        assertThat(change.getFullName()).isEqualTo("io.dimstream.demo.CustomerChange");
        assertThat(fieldNames(change)).containsExactly("op", "event_time", "data");
        assertThat(change.getField("op").schema().getEnumSymbols()).containsExactly("upsert", "delete");
        assertThat(change.getField("event_time").schema().getLogicalType()).isEqualTo(LogicalTypes.timestampMicros());
        assertThat(change.getField("data").schema()).isEqualTo(DemoSchemas.customer());
    }

    @Test
    void debeziumEnvelopeHasOptionalBeforeAndAfterCustomerAndASource() {
        Schema envelope = DemoSchemas.customerDebeziumEnvelope();
        Schema optionalCustomer = Schema.createUnion(Schema.create(Type.NULL), DemoSchemas.customer());

        assertThat(envelope.getFullName()).isEqualTo("io.dimstream.demo.debezium.Envelope");
        assertThat(fieldNames(envelope)).containsExactly("before", "after", "source", "op", "ts_ms");
        assertThat(envelope.getField("before").schema()).isEqualTo(optionalCustomer);
        assertThat(envelope.getField("after").schema()).isEqualTo(optionalCustomer);
        assertThat(envelope.getField("op").schema()).isEqualTo(Schema.create(Type.STRING));
        assertThat(envelope.getField("ts_ms").schema())
                .isEqualTo(Schema.createUnion(Schema.create(Type.NULL), Schema.create(Type.LONG)));
        Schema source = envelope.getField("source").schema();
        assertThat(source.getFullName()).isEqualTo("io.dimstream.demo.debezium.Source");
        assertThat(fieldNames(source)).containsExactly("ts_ms", "db", "table");
    }

    @Test
    void dlqEnvelopeNamesWhereTheRecordCameFromWhyItFailedAndItsBytes() {
        Schema dlq = DemoSchemas.dlqEnvelope();

        assertThat(dlq.getFullName()).isEqualTo("io.dimstream.dlq.DlqEnvelope");
        assertThat(fieldNames(dlq)).containsExactly("entity", "source_topic", "source_partition", "source_offset",
                "error", "failed_at", "original_key", "original_value");
        assertThat(dlq.getField("failed_at").schema().getLogicalType()).isEqualTo(LogicalTypes.timestampMillis());
        Schema optionalBytes = Schema.createUnion(Schema.create(Type.NULL), Schema.create(Type.BYTES));
        assertThat(dlq.getField("original_key").schema()).isEqualTo(optionalBytes);
        assertThat(dlq.getField("original_value").schema()).isEqualTo(optionalBytes);
    }

    @Test
    void aMissingSchemaFileIsNamedInTheError() {
        assertThatThrownBy(() -> DemoSchemas.load("nope.avsc"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Avro schema nope.avsc is not on the classpath");
    }
}
