package io.dimstream.db.event;

import io.dimstream.db.entity.ColumnType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * {@code record_hash}: SHA-256 over the tracked columns in configured order, each encoded as
 * {@code 0x00} for NULL, else {@code 0x01}, the UTF-8 byte length as 4-byte big-endian, then the
 * bytes of its canonical text (DESIGN section 3). Length-prefixing makes {@code ('a|b','c')} and
 * {@code ('a','b|c')} differ, and the NULL marker makes NULL differ from ''.
 */
public final class RecordHash {

    private RecordHash() {
    }

    /**
     * @param canonical canonical texts of the tracked values, null for SQL NULL, or
     *                  {@link Unchanged#VALUE} for a value not resolved yet (hashed as {@code 0x02})
     */
    public static byte[] of(List<?> canonical) {
        MessageDigest sha = sha256();
        ByteBuffer len = ByteBuffer.allocate(4);
        for (Object o : canonical) {
            if (o == null) {
                sha.update((byte) 0);
            } else if (o == Unchanged.VALUE) {
                sha.update((byte) 2);
            } else {
                String s = (String) o;
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                sha.update((byte) 1);
                len.clear();
                len.putInt(b.length);
                sha.update(len.array());
                sha.update(b);
            }
        }
        return sha.digest();
    }

    /** Hash of typed values, each turned into canonical text by its column type. */
    public static byte[] ofValues(List<ColumnType> types, List<Object> values) {
        Object[] canonical = new Object[values.size()];
        for (int i = 0; i < canonical.length; i++) {
            Object v = values.get(i);
            canonical[i] = v == null || v == Unchanged.VALUE ? v : types.get(i).canonical(v);
        }
        return of(java.util.Arrays.asList(canonical));
    }

    public static String hex(byte[] hash) {
        return HexFormat.of().formatHex(hash);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
        }
    }
}
