package io.dimstream.config.model;

import io.dimstream.db.event.Op;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * How a {@code format: seed-json} topic spells its change rows: a flat JSON object holding the
 * row image plus an operation field and a change-time field, as the change tables of the seed
 * articles do ({@code {"id": "C1", ..., "operation": "UPDATE", "change_time": "2025-..."}}).
 *
 * <pre>
 *     op-field: operation                 # default "operation"
 *     time-field: change_time             # default "change_time"
 *     op-values: {upsert: [CREATE, UPDATE], delete: [DELETE]}   # the defaults; matched ignoring case
 * </pre>
 *
 * @param upsertValues operation values meaning upsert, compared ignoring case
 * @param deleteValues operation values meaning delete, compared ignoring case
 */
public record SeedJsonOptions(String opField, String timeField, List<String> upsertValues, List<String> deleteValues) {

    public static final SeedJsonOptions DEFAULTS =
            new SeedJsonOptions("operation", "change_time", List.of("CREATE", "UPDATE"), List.of("DELETE"));

    public SeedJsonOptions {
        upsertValues = List.copyOf(upsertValues);
        deleteValues = List.copyOf(deleteValues);
    }

    /** The op an operation value means, empty when it is neither an upsert nor a delete value. */
    public Optional<Op> opOf(String value) {
        if (value == null) {
            return Optional.empty();
        }
        if (contains(upsertValues, value)) {
            return Optional.of(Op.UPSERT);
        }
        if (contains(deleteValues, value)) {
            return Optional.of(Op.DELETE);
        }
        return Optional.empty();
    }

    private static boolean contains(List<String> values, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        return values.stream().anyMatch(x -> x.trim().toLowerCase(Locale.ROOT).equals(v));
    }
}
