package io.dimstream.schemas.serde;

/** Constants of the Confluent wire format: magic byte {@code 0x00}, a 4-byte big-endian schema id, Avro binary. */
final class WireFormat {

    static final byte MAGIC_BYTE = 0x00;
    static final int HEADER_LENGTH = 5;

    private WireFormat() {
    }
}
