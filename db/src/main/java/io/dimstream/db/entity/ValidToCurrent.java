package io.dimstream.db.entity;

import java.util.Arrays;
import java.util.Optional;

/**
 * What {@code valid_to} holds on a key's last (open) version: SQL NULL (the default, DESIGN section
 * 3) or {@code 'infinity'::timestamptz}, as dbt 1.9's {@code dbt_valid_to_current}, Fivetran and
 * dlt allow, so that a range join is {@code valid_from <= t AND t < valid_to} without a
 * {@code coalesce}. The one home of the two expressions every statement on an entity table uses
 * for "open" ({@link #openTest}) and for "the end of an open version" ({@link #openEnd}): the
 * writer, the DDL, the view and function, the readers and the integrity check ask
 * {@link EntitySpec#openTest} and {@link EntitySpec#openEnd}, never write {@code IS NULL} themselves.
 */
public enum ValidToCurrent {
    /** {@code valid_to IS NULL} on the open version. */
    NULL("null"),
    /** {@code valid_to = 'infinity'} on the open version; the column is NOT NULL. */
    INFINITY("infinity");

    private final String configName;

    ValidToCurrent(String configName) {
        this.configName = configName;
    }

    /** How the config writes it: {@code null} or {@code infinity}. */
    public String configName() {
        return configName;
    }

    /** The constant the config text names; empty for any other text. */
    public static Optional<ValidToCurrent> fromConfig(String text) {
        return Arrays.stream(values()).filter(v -> v.configName.equals(text)).findFirst();
    }

    /** Whether the version whose quoted {@code valid_to} column (alias included) is {@code column} is open. */
    public String openTest(String column) {
        return this == NULL ? column + " IS NULL" : column + " = 'infinity'::timestamptz";
    }

    /** The {@code valid_to} of an open version, as a typed SQL expression. */
    public String openEnd() {
        return this == NULL ? "NULL::timestamptz" : "'infinity'::timestamptz";
    }

    /** Whether the version whose quoted {@code valid_to} is {@code column} ends after the instant {@code instant}: open ones do. */
    public String endsAfter(String column, String instant) {
        return this == NULL ? "(" + column + " IS NULL OR " + column + " > " + instant + ")" : column + " > " + instant;
    }

    /**
     * The valid-range check's condition over the quoted {@code valid_from} and {@code valid_to}:
     * an open version passes it (NULL makes a CHECK pass; infinity is after every instant).
     */
    public String rangeCheck(String validFrom, String validTo) {
        return this == NULL ? validTo + " IS NULL OR " + validTo + " > " + validFrom : validTo + " > " + validFrom;
    }
}
