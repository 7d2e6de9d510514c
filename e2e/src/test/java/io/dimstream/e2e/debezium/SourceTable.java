package io.dimstream.e2e.debezium;

import java.util.List;

/**
 * A table of the source database as the test knows it: its columns in their final shape (a column
 * the workload adds while running included), its primary key and the columns its entity keeps as
 * type 1. The expected history is built from these, and the history table is read by them.
 *
 * @param name    the table's name in schema {@code public}
 * @param columns every column, key columns first, in the order of the source table
 * @param key     the primary key's columns
 * @param type1   columns whose changes overwrite the version in place (no new version)
 */
record SourceTable(String name, List<Column> columns, List<String> key, List<String> type1) {

    /** A column and its PostgreSQL type at the source. */
    record Column(String name, String sqlType) {

        /** Whether values compare as numbers: {@code 12.50} and {@code 12.5} are one value (DESIGN section 3). */
        boolean numeric() {
            return sqlType.startsWith("numeric");
        }
    }

    /** The columns that are neither key nor type 1: a change of one of them makes a version. */
    List<Column> tracked() {
        return columns.stream().filter(c -> !key.contains(c.name()) && !type1.contains(c.name())).toList();
    }

    /** The non-key columns. */
    List<Column> attributes() {
        return columns.stream().filter(c -> !key.contains(c.name())).toList();
    }
}
