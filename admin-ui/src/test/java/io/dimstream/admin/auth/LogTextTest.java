package io.dimstream.admin.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void lineBreaksAndControlAndBidiCharactersCannotForgeOrReorderALogLine() {
        assertThat(LogText.of("eve\r\n2026-01-01 INFO user admin logged in")).isEqualTo("eve\\u000d\\u000a2026-01-01 INFO user admin logged in");
        assertThat(LogText.of("a\u2028b\u0000c\u202Ed\te")).isEqualTo("a\\u2028b\\u0000c\\u202ed\\u0009e");
        assertThat(LogText.of("alice")).isEqualTo("alice");
        assertThat(LogText.of(null)).isEqualTo("(none)");
    }

    @Test
    void aLongNameIsCut() {
        assertThat(LogText.of("x".repeat(100_000))).isEqualTo("x".repeat(80) + "...(100000 characters)");
    }
}
