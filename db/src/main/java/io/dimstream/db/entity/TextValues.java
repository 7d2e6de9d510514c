package io.dimstream.db.entity;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Locale;
import java.util.UUID;

/**
 * text (and {@code varchar(n)}, whose length {@link TypeModifier.Length} checks): a {@code String}.
 * Refused: a NUL character (PostgreSQL's text cannot hold one) and an unpaired UTF-16 surrogate
 * (UTF-8 cannot encode one; it would silently become {@code ?}).
 *
 * <p>Text for anything else: every typed value ({@code LocalDate}, {@code LocalDateTime},
 * {@code LocalTime}, {@code Instant}, {@code UUID}, {@code BigDecimal}, {@code byte[]}) becomes the
 * canonical text of its own type. JSON's own scalars stay refused: an integer, a double or a
 * boolean in a text column is more likely a mistake of the feed than a text.
 */
final class TextValues extends ValueType {

    TextValues(String sqlName) {
        super(sqlName);
    }

    @Override
    Object coerce(Object v) {
        if (v instanceof String s) {
            checkText(s);
            return s;
        }
        ColumnType own = typeOfTyped(v);
        if (own != null) {
            return own.canonical(own.coerce(v)); // text for anything else: its own type's canonical text
        }
        throw wrong(v);
    }

    @Override
    String canonical(Object v) {
        return (String) v;
    }

    @Override
    Object read(ResultSet rs, int index) throws SQLException {
        return rs.getString(index);
    }

    /** The column type whose Java value {@code v} is, for the typed values text takes; null for the rest. */
    private static ColumnType typeOfTyped(Object v) {
        if (v instanceof LocalDate) {
            return ColumnType.DATE;
        }
        if (v instanceof LocalDateTime) {
            return ColumnType.TIMESTAMP;
        }
        if (v instanceof LocalTime) {
            return ColumnType.TIME;
        }
        if (v instanceof Instant) {
            return ColumnType.TIMESTAMPTZ;
        }
        if (v instanceof UUID) {
            return ColumnType.UUID_TYPE;
        }
        if (v instanceof BigDecimal) {
            return ColumnType.NUMERIC;
        }
        if (v instanceof byte[] || v instanceof ByteBuffer) {
            return ColumnType.BYTEA;
        }
        return null;
    }

    /**
     * Refuses text PostgreSQL cannot store as it was given (jsonb's strings too, {@link JsonbText}).
     * Hand-written: the JDK has no check for unpaired surrogates short of encoding the string, which
     * would replace them silently.
     */
    static void checkText(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                throw new IllegalArgumentException("text contains a NUL character (U+0000), which PostgreSQL cannot store");
            }
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new IllegalArgumentException(String.format(Locale.ROOT, "text contains an unpaired UTF-16 surrogate "
                        + "(U+%04X at character %d), which UTF-8 cannot encode", (int) c, i));
            }
        }
    }
}
