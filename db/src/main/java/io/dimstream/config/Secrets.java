package io.dimstream.config;

import java.util.regex.Pattern;

/** Hides secrets in text that is printed or logged. */
public final class Secrets {

    /** What a secret is replaced with. */
    public static final String MASK = "****";

    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)([?&;]password=)[^&;\\s]*");

    private Secrets() {
    }

    /**
     * Whether a property named so holds a secret ({@code ssl.keystore.password},
     * {@code sasl.jaas.config}, {@code basic.auth.user.info}, ...), so its value is never printed.
     */
    public static boolean looksSecret(String propertyName) {
        String n = propertyName.toLowerCase(java.util.Locale.ROOT);
        return n.contains("password") || n.contains("secret") || n.contains("jaas") || n.contains("token")
                || n.contains("user.info") || n.endsWith(".key");
    }

    /**
     * Masks a {@code password=} parameter in a JDBC URL, or in a message quoting one
     * ({@code jdbc:postgresql://h/db?user=u&password=s} becomes {@code ...&password=****}).
     */
    public static String maskUrl(String text) {
        return text == null ? null : URL_PASSWORD.matcher(text).replaceAll("$1" + MASK);
    }
}
