package io.dimstream.admin;

import java.time.Clock;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How the launcher starts the admin beside what the config's {@code admin:} section says.
 *
 * @param port  overrides {@code admin.port}; 0 takes a free port (tests)
 * @param host  overrides {@code admin.host}
 * @param clock the clock of "the last hour" figures and of session expiry
 */
public record AdminSettings(OptionalInt port, String host, Clock clock) {

    public AdminSettings {
        Objects.requireNonNull(port, "port");
        Objects.requireNonNull(clock, "clock");
    }

    /** Everything as the config says, the system clock. */
    public static AdminSettings fromConfig() {
        return new AdminSettings(OptionalInt.empty(), null, Clock.systemUTC());
    }

    /** On {@code port} (0: any free port), else as the config says. */
    public static AdminSettings onPort(int port) {
        return new AdminSettings(OptionalInt.of(port), null, Clock.systemUTC());
    }
}
