package io.dimstream.db.entity;

import io.dimstream.db.sql.Sql;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The checks of an {@link EntitySpec}'s names and lists on construction: every name a column may not
 * take (the system columns, the event memory's, the writer's work columns, the transaction-time side
 * table's for key columns), names PostgreSQL would cut, columns listed twice or untyped.
 */
final class EntityChecks {

    private EntityChecks() {
    }

    static void validate(String name, String table, List<String> key, List<String> tracked,
                                 List<String> type1, Map<String, ColumnType> columns,
                                 Optional<Duration> horizon, SystemColumns system) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name: must not be empty");
        }
        if (table == null || table.isBlank()) {
            throw new IllegalArgumentException("table: must not be empty");
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("key: at least one key column is required");
        }
        if (tracked.isEmpty()) {
            throw new IllegalArgumentException("tracked: at least one tracked column is required");
        }
        Set<String> seen = new HashSet<>();
        for (String field : List.of("key", "tracked", "type1")) {
            List<String> cols = field.equals("key") ? key : field.equals("tracked") ? tracked : type1;
            for (String c : cols) {
                if (!seen.add(c)) {
                    throw new IllegalArgumentException(field + ": column '" + c + "' is listed twice across key/tracked/type1");
                }
                if (!columns.containsKey(c)) {
                    throw new IllegalArgumentException(field + ": column '" + c + "' has no type in columns");
                }
                identifier(field + ": column", c);
                if (system.all().contains(c) || EntitySpec.MEMORY_COLUMNS.contains(c)) {
                    throw new IllegalArgumentException(field + ": column '" + c + "' clashes with a system column");
                }
                if (EntitySpec.WORK_COLUMNS.contains(c)) {
                    throw new IllegalArgumentException(field + ": column '" + c + "' is a name the writer's SQL uses for a column "
                            + "of its own (reserved: " + String.join(", ", new TreeSet<>(EntitySpec.WORK_COLUMNS)) + ")");
                }
                if (field.equals("key") && EntitySpec.SUPERSEDED_COLUMNS.contains(c)) {
                    throw new IllegalArgumentException("key: column '" + c + "' is a column of the transaction-time table "
                            + "<table>_superseded (reserved for key columns: " + String.join(", ", EntitySpec.SUPERSEDED_COLUMNS) + ")");
                }
            }
        }
        List<String> defaults = SystemColumns.DEFAULTS.all();
        for (int i = 0; i < defaults.size(); i++) {
            String c = system.all().get(i);
            String field = "system-columns." + defaults.get(i);
            identifier(field + ": column", c);
            if (!c.equals(defaults.get(i)) && (EntitySpec.WORK_COLUMNS.contains(c) || EntitySpec.MEMORY_COLUMNS.contains(c))) {
                throw new IllegalArgumentException(field + ": '" + c + "' is a name the writer's SQL uses for a column of its own "
                        + "(reserved: " + String.join(", ", new TreeSet<>(reserved())) + ")");
            }
        }
        String schema = Sql.schemaOf(table);
        if (schema != null) {
            identifier("table: schema", schema);
        }
        identifier("table:", Sql.nameOf(table));
        for (String c : columns.keySet()) {
            if (!seen.contains(c)) {
                throw new IllegalArgumentException("columns: '" + c + "' is typed but not listed in key, tracked or type1");
            }
        }
        horizon.ifPresent(h -> {
            if (h.isNegative() || h.isZero()) {
                throw new IllegalArgumentException("lateness-horizon: must be positive, got " + h);
            }
        });
    }

    /** Names no column may take: the writer's work columns and the event memory's. */
    private static List<String> reserved() {
        List<String> all = new ArrayList<>(EntitySpec.WORK_COLUMNS);
        all.addAll(EntitySpec.MEMORY_COLUMNS);
        return all;
    }

    /** A name PostgreSQL takes as it is: at most {@link #MAX_IDENTIFIER_BYTES} bytes of UTF-8, no NUL. */
    private static void identifier(String what, String name) {
        if (name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(what + " '" + name.replace("\0", "\\u0000") + "' contains a NUL character");
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > EntitySpec.MAX_IDENTIFIER_BYTES) {
            throw new IllegalArgumentException(what + " '" + name + "' is " + bytes + " bytes long; PostgreSQL cuts names to "
                    + EntitySpec.MAX_IDENTIFIER_BYTES + " bytes, so the database would know it by another name");
        }
    }

}
