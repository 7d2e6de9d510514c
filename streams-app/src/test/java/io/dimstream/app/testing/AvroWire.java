package io.dimstream.app.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/** Avro records as a Confluent serializer writes them, for tests that produce them. */
public final class AvroWire {

    private AvroWire() {
    }

    /** The Confluent wire format: magic byte 0, the schema id (4 bytes, big-endian), Avro binary. */
    public static byte[] wire(int schemaId, GenericRecord record) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(0);
            out.write(ByteBuffer.allocate(4).putInt(schemaId).array());
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An upsert of {@code DemoSchemas.customerChange()}: the customer {@code id} with its email, every
     * other field null, at {@code time}.
     */
    public static GenericRecord customerUpsert(Schema change, String id, String email, Instant time) {
        Schema customer = change.getField("data").schema();
        return new GenericRecordBuilder(change)
                .set("op", new GenericData.EnumSymbol(change.getField("op").schema(), "upsert"))
                .set("event_time", time.getEpochSecond() * 1_000_000L + time.getNano() / 1_000)
                .set("data", new GenericRecordBuilder(customer).set("customer_id", id).set("email", email).build())
                .build();
    }
}
