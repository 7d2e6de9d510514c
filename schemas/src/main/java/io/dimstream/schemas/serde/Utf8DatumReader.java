package io.dimstream.schemas.serde;

import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.Decoder;

/**
 * A {@link GenericDatumReader} that reads every string and map key as Avro's {@code Utf8}, its bytes
 * as written, whatever the schema's {@code avro.java.string} says: with {@code "String"} (as schemas
 * generated for Java often carry) Avro decodes the bytes itself with {@code new String(bytes, UTF_8)},
 * which puts U+FFFD where they are not UTF-8 and leaves nothing to refuse. The bytes are judged later,
 * by {@code io.dimstream.schemas.AvroValues}, which knows the field's path. Avro's fast reader is off
 * for it (it would not call these methods), whatever {@code org.apache.avro.fastread} says.
 */
final class Utf8DatumReader<D> extends GenericDatumReader<D> {

    Utf8DatumReader(Schema writer, Schema reader) {
        super(writer, reader, new GenericData().setFastReaderEnabled(false));
    }

    @Override
    protected Object readString(Object old, Schema expected, Decoder in) throws IOException {
        return readString(old, in); // a Utf8, reusing old when it is one
    }
}
