package io.dimstream.db.write;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.postgresql.copy.CopyIn;
import org.postgresql.util.ByteStreamWriter;

/** The COPY text encoding of {@link CopyWriter}, byte for byte, against an in-memory COPY channel. */
class CopyWriterTest {

    @Test
    void textsAreEscapedPerTheCopyTextFormatAndPlainTextsPassAsTheyAre() throws Exception {
        RecordingCopyIn in = new RecordingCopyIn();
        CopyWriter w = new CopyWriter(in);
        w.text("plain").text(null).text("").text("a\\b").text("line\nbreak").text("cr\rhere").text("tab\there")
                .text("all \\ \n \r \t end").text("\u00e9t\u00e9 \u6771\u4eac \ud83d\ude00").endRow();
        w.bytes(new byte[] {0, (byte) 0xff}).bytes(null).raw("42").raw(null).endRow();
        w.finish();
        assertEquals("plain\t\\N\t\ta\\\\b\tline\\nbreak\tcr\\rhere\ttab\\there\tall \\\\ \\n \\r \\t end\t\u00e9t\u00e9 \u6771\u4eac \ud83d\ude00\n"
                + "\\\\x00ff\t\\N\t42\t\\N\n", in.text());
        assertEquals(1, in.ends);
    }

    /** Keeps what is written to it; only the calls CopyWriter makes. */
    private static final class RecordingCopyIn implements CopyIn {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private int ends;

        String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void writeToCopy(byte[] buf, int off, int siz) {
            bytes.write(buf, off, siz);
        }

        @Override
        public void writeToCopy(ByteStreamWriter from) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void flushCopy() {
        }

        @Override
        public long endCopy() {
            ends++;
            return 2;
        }

        @Override
        public int getFieldCount() {
            return 0;
        }

        @Override
        public int getFormat() {
            return 0;
        }

        @Override
        public int getFieldFormat(int field) {
            return 0;
        }

        @Override
        public boolean isActive() {
            return true;
        }

        @Override
        public void cancelCopy() {
        }

        @Override
        public long getHandledRowCount() {
            return 0;
        }
    }
}
