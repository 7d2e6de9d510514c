package io.dimstream.config.model;

import io.dimstream.db.secrets.Secrets;

/**
 * {@code postgres:}: the database the history tables live in.
 *
 * @param user     null when the URL carries it (or for {@code embedded})
 * @param password null when the URL carries it (or for {@code embedded}); never printed
 */
public record PostgresConfig(String url, String user, String password, int poolSize) {

    /** The value that starts PostgreSQL inside the process. */
    public static final String EMBEDDED = "embedded";

    /** Used when config names no {@code pool-size} (HikariCP's own default). */
    public static final int DEFAULT_POOL_SIZE = 10;

    public boolean embedded() {
        return EMBEDDED.equals(url);
    }

    /** Masks the password, also one passed as a URL parameter, so logging this is safe. */
    @Override
    public String toString() {
        return "PostgresConfig[url=" + Secrets.mask(url) + ", user=" + user
                + ", password=" + (password == null ? null : Secrets.MASK) + ", poolSize=" + poolSize + "]";
    }
}
