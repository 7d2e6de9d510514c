package io.dimstream.db.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What {@code dimstream.replay_jobs} holds, summed per entity, for the replay gauges
 * ({@code ReplayMeters} in streams-app): jobs by state, and over the entity's RUNNING jobs the
 * events read, the rows changed and the lag (events of their ranges not read yet,
 * {@code events_total - events_read}; 0 before a job has taken its range). One grouped query over
 * the jobs table, which holds one row per job ever submitted.
 *
 * @param jobs    per entity asked for, every state with its count (0 when none)
 * @param running per entity asked for, the sums over its RUNNING jobs
 */
public record ReplayJobStats(Map<String, Map<JobState, Long>> jobs, Map<String, Running> running) {

    /** Sums over an entity's RUNNING jobs. */
    public record Running(long eventsRead, long rowsChanged, long lag) {
        public static final Running NONE = new Running(0, 0, 0);
    }

    /** The stats of {@code entities} (the others' rows are not read). */
    public static ReplayJobStats read(DataSource ds, Collection<String> entities) throws SQLException {
        Map<String, Map<JobState, Long>> jobs = new LinkedHashMap<>();
        Map<String, Running> running = new LinkedHashMap<>();
        for (String e : entities) {
            Map<JobState, Long> byState = new EnumMap<>(JobState.class);
            for (JobState s : JobState.values()) {
                byState.put(s, 0L);
            }
            jobs.put(e, byState);
            running.put(e, Running.NONE);
        }
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT entity, state, count(*), coalesce(sum(events_read), 0), "
                     + "coalesce(sum(rows_changed), 0), coalesce(sum(events_total - events_read), 0) "
                     + "FROM dimstream.replay_jobs WHERE entity = ANY (?) GROUP BY entity, state")) {
            p.setArray(1, c.createArrayOf("text", entities.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String entity = rs.getString(1);
                    JobState state;
                    try {
                        state = JobState.valueOf(rs.getString(2));
                    } catch (IllegalArgumentException unknown) {
                        continue; // a state a newer version wrote: not counted by this one
                    }
                    jobs.get(entity).put(state, rs.getLong(3));
                    if (state == JobState.RUNNING) {
                        running.put(entity, new Running(rs.getLong(4), rs.getLong(5), rs.getLong(6)));
                    }
                }
            }
        }
        return new ReplayJobStats(jobs, running);
    }
}
