package io.dimstream.db.sql;

import java.util.List;

/**
 * Walking an entity's keys in key order a batch at a time, each batch its own transaction (history
 * retention, the event memory's pruning). A batch's bounds are kept in one-row temp tables of the
 * key's columns, made from the table ({@link #boundTable}), so key values of any type are compared
 * with their own types and none is bound from Java; composite keys compare as row values. A bound is
 * read as a row of scalar subqueries: init plans, so the comparison is the key index scan's condition
 * (a walk that tested "no last key yet OR after it" scanned from the first key at every batch).
 */
public final class KeyWalk {

    private KeyWalk() {
    }

    /** Statements that make the temp table {@code name} (unqualified) anew with the key columns of {@code table}, empty. */
    public static List<String> boundTable(String name, String table, List<String> key) {
        return List.of("DROP TABLE IF EXISTS pg_temp." + name, "CREATE TEMP TABLE " + name + " AS SELECT " + Sql.list(key) + " FROM " + table
                + " WITH NO DATA");
    }

    /** {@code alias}'s key is after the one row of {@code bound} (a qualified temp table). */
    public static String after(String alias, List<String> key, String bound) {
        return compare(alias, key, ">", bound);
    }

    /** {@code alias}'s key is at or before the one row of {@code bound} (a qualified temp table). */
    public static String atMost(String alias, List<String> key, String bound) {
        return compare(alias, key, "<=", bound);
    }

    private static String compare(String alias, List<String> key, String op, String bound) {
        if (key.size() == 1) {
            return alias + "." + Sql.ident(key.get(0)) + " " + op + " (SELECT l." + Sql.ident(key.get(0)) + " FROM " + bound + " l)";
        }
        return "(" + Sql.list(alias, key) + ") " + op + " (" + Sql.each(key, c -> "(SELECT l." + Sql.ident(c) + " FROM " + bound + " l)", ", ")
                + ")";
    }
}
