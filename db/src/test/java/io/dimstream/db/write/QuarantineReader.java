package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/** An entity's {@code dimstream.quarantine} rows in the shape of {@link ReferenceModel.Quarantined}, and emptying an entity for a new run. */
public final class QuarantineReader {

    private static final Pattern HORIZON_REASON = Pattern.compile(
            "event_time (.+) is older than the newest event of its key \\((.+)\\) by more than the lateness horizon .+");
    /** PostgreSQL's text of a timestamptz in UTC: {@code 2025-03-01 04:00:00+00}, fractions only when not zero. */
    private static final DateTimeFormatter PG_TIMESTAMPTZ = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 6, true).optionalEnd()
            .appendPattern("X")
            .toFormatter();

    private QuarantineReader() {
    }

    /**
     * The entity's quarantine rows, ordered as the model orders them; a row whose reason is not the
     * lateness horizon's (naming the newest event time of the key at the event's arrival) fails.
     */
    public static List<ReferenceModel.Quarantined> rows(DataSource ds, EntitySpec spec) throws SQLException {
        StringBuilder key = new StringBuilder();
        for (String k : spec.key()) {
            key.append(", event_key ->> '").append(k.replace("'", "''")).append("'");
        }
        List<ReferenceModel.Quarantined> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT event_time, seq, reason" + key + " FROM dimstream.quarantine WHERE entity = ?")) {
            p.setString(1, spec.name());
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String reason = rs.getString("reason");
                    Matcher m = HORIZON_REASON.matcher(reason);
                    if (!m.matches()) {
                        throw new AssertionError("quarantine reason is not the lateness horizon's: " + reason);
                    }
                    List<String> keyText = new ArrayList<>();
                    for (int i = 0; i < spec.key().size(); i++) {
                        keyText.add(rs.getString(4 + i));
                    }
                    out.add(new ReferenceModel.Quarantined(keyText, rs.getObject("event_time", OffsetDateTime.class).toInstant(), rs.getLong("seq"),
                            OffsetDateTime.parse(m.group(2), PG_TIMESTAMPTZ).toInstant()));
                }
            }
        }
        out.sort(ReferenceModel.QUARANTINE_ORDER);
        return out;
    }

    /** The entity's table, event memory and quarantine rows emptied, as new. */
    public static void empty(DataSource ds, EntitySpec spec) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("TRUNCATE " + Sql.table(spec.table()) + ", " + Sql.table(spec.memoryTable()));
            if (spec.transactionTime()) {
                st.execute("TRUNCATE " + Sql.table(spec.supersededTable()));
            }
            try (PreparedStatement p = c.prepareStatement("DELETE FROM dimstream.quarantine WHERE entity = ?")) {
                p.setString(1, spec.name());
                p.executeUpdate();
            }
        }
    }
}
