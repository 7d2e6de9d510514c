package io.dimstream.app.decode;

import io.dimstream.schemas.registry.SchemaRegistryUnavailableException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Runs the configured Avro deserializer, turning its failures into a reason, except a schema registry
 * that cannot answer: that is not the record's fault, so it is thrown as a
 * {@link SchemaRegistryUnavailableException} for the record to be read again later (the decode step
 * lets it through, the processing exception handler answers FAIL, the stream thread supervisor
 * replaces the thread with backoff).
 */
final class AvroRecords {

    private AvroRecords() {
    }

    /**
     * @throws IllegalArgumentException            {@code not valid Avro: ...}: the bytes cannot be read
     * @throws SchemaRegistryUnavailableException the registry could not be asked (dimstream's deserializer
     *                                            after its retries; or a network failure in the cause
     *                                            chain of another deserializer's exception)
     */
    static GenericRecord read(Deserializer<GenericRecord> deserializer, String topic, byte[] value) {
        GenericRecord record;
        try {
            record = deserializer.deserialize(topic, value);
        } catch (SchemaRegistryUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            if (networkFailure(e)) {
                // another deserializer (Confluent's, say) wraps its registry client's I/O errors in a
                // SerializationException; the bytes were never judged
                throw new SchemaRegistryUnavailableException("schema registry unavailable: " + e.getMessage(), e);
            }
            throw new IllegalArgumentException("not valid Avro: " + e.getMessage(), e);
        }
        if (record == null) {
            throw new IllegalArgumentException("not valid Avro: the deserializer returned no record");
        }
        return record;
    }

    private static boolean networkFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SchemaRegistryUnavailableException || t instanceof ConnectException || t instanceof UnknownHostException
                    || t instanceof HttpTimeoutException || t instanceof InterruptedIOException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
