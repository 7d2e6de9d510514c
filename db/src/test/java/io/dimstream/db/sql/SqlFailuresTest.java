package io.dimstream.db.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.sql.SqlFailures.Kind;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SqlFailuresTest {

    @Test
    void eachFailureHasOneKindBySqlStateOrExceptionType() {
        Map<String, Throwable> failures = new LinkedHashMap<>();
        failures.put("connection refused", new SQLException("refused", "08001"));
        failures.put("i/o error", new SQLException("An I/O error occurred while sending to the backend", "08006"));
        failures.put("admin shutdown", new SQLException("terminating connection due to administrator command", "57P01"));
        failures.put("starting up", new SQLException("the database system is starting up", "57P03"));
        failures.put("too many connections", new SQLException("too many connections", "53300"));
        failures.put("disk full", new SQLException("could not extend file", "53100"));
        failures.put("serialization", new SQLException("could not serialize access", "40001"));
        failures.put("deadlock", new SQLException("deadlock detected", "40P01"));
        failures.put("lock timeout", new SQLException("canceling statement due to lock timeout", "55P03"));
        failures.put("statement timeout", new SQLException("canceling statement due to statement timeout", "57014"));
        failures.put("pool timeout", new SQLTransientConnectionException("Connection is not available, request timed out"));
        // seen: Hikari's timeout carries the state of the last refusal, here a database closed to connections
        failures.put("pool timeout with a state", new SQLTransientConnectionException("dimstream - Connection is not available", "55000",
                new SQLException("FATAL: database \"x\" is not currently accepting connections", "55000")));
        failures.put("wrapped refusal", new IllegalStateException("pool", new ConnectException("Connection refused")));
        failures.put("NUL byte", new SQLException("invalid byte sequence for encoding \"UTF8\": 0x00", "22021"));
        failures.put("year 0", new SQLException("date/time field value out of range", "22008"));
        failures.put("numeric overflow", new SQLException("numeric field overflow", "22003"));
        failures.put("check", new SQLException("new row violates check constraint", "23514"));
        failures.put("not null", new SQLException("null value in column violates not-null constraint", "23502"));
        failures.put("index row too big", new SQLException("index row size 3016 exceeds btree version 4 maximum 2704", "54000"));
        failures.put("wrapped data", new RuntimeException(new SQLException("value too long for type character varying(5)", "22001")));
        failures.put("missing table", new SQLException("relation \"dim_x\" does not exist", "42P01"));
        failures.put("permission", new SQLException("permission denied for table dim_x", "42501"));
        failures.put("internal", new SQLException("cache lookup failed", "XX000"));
        failures.put("no state", new SQLException("something"));
        failures.put("a bug", new IllegalStateException("classification does not add up"));

        Map<String, Kind> kinds = new LinkedHashMap<>();
        failures.forEach((what, e) -> kinds.put(what, SqlFailures.classify(e)));

        Map<String, Kind> expected = new LinkedHashMap<>();
        for (String t : new String[] {"connection refused", "i/o error", "admin shutdown", "starting up", "too many connections",
                "disk full", "serialization", "deadlock", "lock timeout", "statement timeout", "pool timeout", "pool timeout with a state",
                "wrapped refusal"}) {
            expected.put(t, Kind.TRANSIENT);
        }
        for (String d : new String[] {"NUL byte", "year 0", "numeric overflow", "check", "not null", "index row too big", "wrapped data"}) {
            expected.put(d, Kind.DATA);
        }
        for (String o : new String[] {"missing table", "permission", "internal", "no state", "a bug"}) {
            expected.put(o, Kind.OTHER);
        }
        assertThat(kinds).isEqualTo(expected);
    }

    @Test
    void theSqlStateIsTheFirstInTheCauseChain() {
        assertThat(SqlFailures.sqlState(new RuntimeException(new SQLException("x", "22021")))).isEqualTo(Optional.of("22021"));
        assertThat(SqlFailures.sqlState(new IllegalStateException("no sql"))).isEqualTo(Optional.empty());
    }
}
