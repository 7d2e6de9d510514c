package io.dimstream.db.entity;

import java.nio.ByteBuffer;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Base64;
import java.util.HexFormat;

/**
 * bytea: a {@code byte[]}, from bytes, a {@code ByteBuffer} (an Avro {@code bytes} value,
 * {@link ColumnType#bytesOf}), or a string: base64, as Kafka Connect's JsonConverter writes bytes,
 * or {@code \x} and hex digit pairs, as PostgreSQL prints them. A string that is neither is
 * refused. The canonical text is {@code \x} and lower-case hex, which is also PostgreSQL's own
 * text of it ({@code bytea_output} hex, the default since PostgreSQL 9.0).
 */
final class ByteaValues extends ValueType {

    ByteaValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        if (v instanceof byte[] b) {
            return b;
        }
        if (v instanceof ByteBuffer buffer) {
            return ColumnType.bytesOf(buffer);
        }
        if (v instanceof String s) {
            if (s.startsWith("\\x") || s.startsWith("\\X")) {
                try {
                    return HexFormat.of().parseHex(s, 2, s.length());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("expected bytea, got " + describe(v) + ": not \\x and pairs of hex digits");
                }
            }
            try {
                return Base64.getDecoder().decode(s);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("expected bytea as base64 (or \\x and hex digits), got " + describe(v) + ": "
                        + e.getMessage());
            }
        }
        throw wrong(v);
    }

    @Override
    String canonical(Object v) {
        return "\\x" + HexFormat.of().formatHex((byte[]) v);
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getBytes(index);
    }
}
