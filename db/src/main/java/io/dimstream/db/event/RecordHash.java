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
 *
 * <p>Columns added while running ({@link io.dimstream.db.entity.EntitySpec#evolved()}) follow,
 * only those holding a value: {@link #EVOLVED_MARKER}, the column's name (length-prefixed UTF-8),
 * then its value encoded as above. A version written before the column existed keeps its hash, and
 * so does every later one whose new column is NULL: adding a column makes no version by itself; a
 * key gets one when the column gets a value. The name is hashed so that a value moving from one
 * evolved column to another is a change.
 */
public final class RecordHash {

    private RecordHash() {
    }

    /**
     * @param canonical canonical texts of the tracked values, null for SQL NULL, or
     *                  {@link Unchanged#VALUE} for a value not resolved yet (hashed as {@code 0x02})
     */
    public static byte[] of(List<?> canonical) {
        return of(canonical, List.of());
    }

    /** Introduces an evolved column's name and value; distinct from the value markers 0x00, 0x01, 0x02. */
    public static final byte EVOLVED_MARKER = 3;

    /**
     * @param canonical canonical texts of the tracked values, the config's columns first, then the
     *                  evolved ones (as in {@link #of(List)})
     * @param evolved   the names of the evolved columns, which are the last {@code evolved.size()}
     *                  entries of {@code canonical}; those that are NULL are left out
     */
    public static byte[] of(List<?> canonical, List<String> evolved) {
        MessageDigest sha = sha256();
        ByteBuffer len = ByteBuffer.allocate(4);
        int base = canonical.size() - evolved.size();
        for (int i = 0; i < canonical.size(); i++) {
            Object o = canonical.get(i);
            if (i >= base) {
                if (o == null) {
                    continue; // a NULL evolved column is as if the column did not exist
                }
                sha.update(EVOLVED_MARKER);
                lengthPrefixed(sha, len, evolved.get(i - base));
            }
            if (o == null) {
                sha.update((byte) 0);
            } else if (o == Unchanged.VALUE) {
                sha.update((byte) 2);
            } else {
                sha.update((byte) 1);
                lengthPrefixed(sha, len, (String) o);
            }
        }
        return sha.digest();
    }

    private static void lengthPrefixed(MessageDigest sha, ByteBuffer len, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        len.clear();
        len.putInt(b.length);
        sha.update(len.array());
        sha.update(b);
    }

    /** Hash of typed values, each turned into canonical text by its column type. */
    public static byte[] ofValues(List<ColumnType> types, List<Object> values) {
        return ofValues(types, values, List.of());
    }

    /** Hash of typed tracked values whose last {@code evolved.size()} are the evolved columns so named ({@link #of(List, List)}). */
    public static byte[] ofValues(List<ColumnType> types, List<Object> values, List<String> evolved) {
        Object[] canonical = new Object[values.size()];
        for (int i = 0; i < canonical.length; i++) {
            Object v = values.get(i);
            canonical[i] = v == null || v == Unchanged.VALUE ? v : types.get(i).canonical(v);
        }
        return of(java.util.Arrays.asList(canonical), evolved);
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
