package io.dimstream.db.secrets;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hides secrets in text that is printed or logged. {@link #mask} is the one function every
 * printed URL, error message and config value goes through (the CLI's failure line, the
 * effective config, the database handle's URL, the config refusals); {@link #looksSecret} decides
 * which named settings are replaced whole.
 */
public final class Secrets {

    /** What a secret is replaced with. */
    public static final String MASK = "****";

    /**
     * {@code name=value} where the name may be a secret's: a URL parameter ({@code ?password=},
     * {@code &sslpassword=}, {@code ;sslkey=}), a property in a message
     * ({@code basic.auth.user.info=u:p}), a JAAS option ({@code password="p"}). The value is a
     * quoted string, or runs to the next {@code &}, {@code ;}, whitespace or the end (a comma may be
     * part of a password): masking too much is harmless, too little is not.
     */
    private static final Pattern NAME_VALUE = Pattern.compile(
            "(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)(\\s*=\\s*)(\"(?:[^\"\\\\]|\\\\.)*\"?|'[^']*'?|[^&;\\s\"']*)");

    /** {@code scheme://user:password@host}: the password part of a URL's user info. */
    private static final Pattern USER_INFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://[^/\\s:@?#]*):([^@/\\s?#]*)@");

    private Secrets() {
    }

    /**
     * Whether a setting named so holds a secret, so its value is never printed:
     * {@code password}, {@code sslpassword}, {@code ssl.keystore.password}, {@code sasl.jaas.config},
     * {@code basic.auth.user.info}, {@code bearer.auth.token}, {@code client.secret},
     * {@code *credentials*}, {@code sslkey}, {@code ssl.key}, {@code api.key}.
     */
    public static boolean looksSecret(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.contains("password") || n.contains("passwd") || n.contains("secret") || n.contains("jaas")
                || n.contains("token") || n.contains("credential") || n.contains("user.info") || n.contains("userinfo")
                || n.endsWith(".key") || n.endsWith("-key") || n.endsWith("_key") || n.equals("sslkey") || n.endsWith("apikey");
    }

    /**
     * The text with every secret replaced by {@value #MASK}: values of secret-named parameters
     * ({@link #looksSecret}: {@code jdbc:postgresql://h/db?user=u&password=s&sslpassword=k} becomes
     * {@code ...&password=****&sslpassword=****}), JAAS options ({@code password="p"}) and the
     * password of a URL's user info ({@code http://u:p@host} becomes {@code http://u:****@host}).
     * Null stays null.
     */
    public static String mask(String text) {
        if (text == null) {
            return null;
        }
        String out = USER_INFO.matcher(text).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + ":" + MASK + "@"));
        Matcher m = NAME_VALUE.matcher(out);
        StringBuilder b = new StringBuilder(out.length());
        while (m.find()) {
            String replacement = looksSecret(m.group(1)) && !m.group(3).isEmpty() ? m.group(1) + m.group(2) + MASK : m.group();
            m.appendReplacement(b, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(b);
        return b.toString();
    }

    /** A setting's value as printed: {@value #MASK} for a secret's name, else the value with any secret inside masked. */
    public static String maskValue(String name, String value) {
        return looksSecret(name) ? MASK : mask(value);
    }
}
