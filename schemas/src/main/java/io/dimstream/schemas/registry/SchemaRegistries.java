package io.dimstream.schemas.registry;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/** Picks the {@link SchemaRegistryClient} for a {@code schema.registry.url}. */
public final class SchemaRegistries {

    /** Config key of the HTTP basic auth credentials, {@code "user:password"} (Confluent's name). */
    public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";

    private static final String MOCK_PREFIX = "mock://";

    private SchemaRegistries() {
    }

    /**
     * {@code mock://SCOPE}: the JVM-wide in-memory {@link MockSchemaRegistry} of that scope;
     * {@code http://...} or {@code https://...}: a new {@link HttpSchemaRegistryClient}, with basic auth
     * when {@code configs} has {@value #BASIC_AUTH_USER_INFO}. Anything else, including a comma-separated
     * list of URLs, is refused with an {@link IllegalArgumentException} saying why.
     */
    public static SchemaRegistryClient forUrl(String url, Map<String, ?> configs) {
        Objects.requireNonNull(url, "url");
        String trimmed = url.strip();
        if (trimmed.contains(",")) {
            throw new IllegalArgumentException("only one schema registry URL is supported, got a list: " + trimmed);
        }
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (lower.startsWith(MOCK_PREFIX)) {
            String scope = trimmed.substring(MOCK_PREFIX.length());
            if (scope.isEmpty()) {
                throw new IllegalArgumentException("mock:// needs a scope name, like mock://demo");
            }
            return MockSchemaRegistry.forScope(scope);
        }
        if (lower.startsWith("http://") || lower.startsWith("https://")) {
            return new HttpSchemaRegistryClient(trimmed, userInfo(configs));
        }
        throw new IllegalArgumentException("unsupported schema registry URL " + trimmed
                + ": expected http://..., https://... or mock://SCOPE");
    }

    private static String userInfo(Map<String, ?> configs) {
        Object value = configs == null ? null : configs.get(BASIC_AUTH_USER_INFO);
        if (value == null) {
            return null;
        }
        // Kafka's ConfigDef hands PASSWORD settings over as org.apache.kafka.common.config.types.Password
        String text = value instanceof org.apache.kafka.common.config.types.Password p ? p.value() : value.toString();
        return text.isBlank() ? null : text;
    }
}
