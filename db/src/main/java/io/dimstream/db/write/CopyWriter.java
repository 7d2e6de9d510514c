package io.dimstream.db.write;

import io.dimstream.db.entity.ColumnType;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.HexFormat;
import org.postgresql.copy.CopyIn;

/**
 * Streams rows into a {@code COPY ... FROM STDIN} in PostgreSQL's text format, in chunks.
 * pgjdbc offers the COPY channel but no row encoder, hence this small one: values are the
 * canonical texts of {@link ColumnType} (which PostgreSQL parses back to the same value),
 * escaped per the COPY text format; NULL is {@code \N}; bytea is {@code \\x<hex>}.
 */
final class CopyWriter {

    private static final int CHUNK = 1 << 20;
    private final CopyIn copy;
    private final StringBuilder buf = new StringBuilder(CHUNK + 4096);
    private boolean first = true;

    CopyWriter(CopyIn copy) {
        this.copy = copy;
    }

    CopyWriter text(String s) throws SQLException {
        sep();
        if (s == null) {
            buf.append("\\N");
            return this;
        }
        // most texts need no escape: four scans of the string's own array (String.indexOf) and one
        // copy cost far less than a charAt per character in the C1-only JVM `load` runs in
        if (s.indexOf('\\') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0 && s.indexOf('\t') < 0) {
            buf.append(s);
            return this;
        }
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '\\' -> buf.append("\\\\");
                case '\n' -> buf.append("\\n");
                case '\r' -> buf.append("\\r");
                case '\t' -> buf.append("\\t");
                default -> buf.append(ch);
            }
        }
        return this;
    }

    CopyWriter value(ColumnType type, Object v) throws SQLException {
        return text(v == null ? null : type.canonical(v));
    }

    CopyWriter bytes(byte[] b) throws SQLException {
        sep();
        if (b == null) {
            buf.append("\\N");
        } else {
            buf.append("\\\\x").append(HexFormat.of().formatHex(b));
        }
        return this;
    }

    CopyWriter raw(String alreadySafe) throws SQLException {
        sep();
        buf.append(alreadySafe == null ? "\\N" : alreadySafe);
        return this;
    }

    void endRow() throws SQLException {
        buf.append('\n');
        first = true;
        if (buf.length() >= CHUNK) {
            flush();
        }
    }

    long finish() throws SQLException {
        flush();
        return copy.endCopy();
    }

    private void sep() {
        if (!first) {
            buf.append('\t');
        }
        first = false;
    }

    private void flush() throws SQLException {
        if (buf.length() > 0) {
            byte[] bytes = buf.toString().getBytes(StandardCharsets.UTF_8);
            copy.writeToCopy(bytes, 0, bytes.length);
            buf.setLength(0);
        }
    }
}
