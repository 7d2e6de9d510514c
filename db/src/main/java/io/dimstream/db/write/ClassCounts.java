package io.dimstream.db.write;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * How many winning events fall in each class of {@link ApplyResult} that reaches the table. The
 * writer's classifying statement ({@code WriterSql.classify}, judging each event at its arrival)
 * returns them under the column labels {@code late, new_keys, changed, deleted, unchanged}, read
 * here by label, not by position.
 */
record ClassCounts(int late, int newKeys, int changed, int deleted, int unchanged) {

    /** The classes in the current row of {@code rs}, by their column labels. */
    static ClassCounts read(ResultSet rs) throws SQLException {
        return new ClassCounts(rs.getInt("late"), rs.getInt("new_keys"), rs.getInt("changed"), rs.getInt("deleted"),
                rs.getInt("unchanged"));
    }

    int total() {
        return late + newKeys + changed + deleted + unchanged;
    }
}
