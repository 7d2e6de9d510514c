package io.dimstream.db.write;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Random feeds for a finite lateness horizon, shared by the writer's and the file loader's property
 * tests: three keys, twelve hours of event times against a horizon of four, so that late events,
 * events beyond the horizon, same-time ties, deletes and resurrections are all common; exact repeats
 * of an earlier event (a new arrival of the same content) and re-deliveries (the same arrival
 * again). {@link QuarantineReader} reads what the writer quarantined back in the model's shape.
 */
public final class HorizonFeeds {

    public static final Duration HORIZON = Duration.ofHours(4);
    private static final Instant BASE = Instant.parse("2025-03-01T00:00:00Z");
    private static final String[] KEYS = {"K1", "K2", "K3"};
    /** (name, tier): 0 and 1 differ in a tracked column, 2 in both. */
    private static final String[][] STATES = {{"Ann", "gold"}, {"Ann", "silver"}, {"Bob", "gold"}};
    private static final Long[] LOGINS = {1L, 2L};

    /** NEW: an event of its own; REPEAT: the content and time of event {@code ref} again, a new arrival; REDELIVER: event {@code ref} again, same arrival. */
    public enum Kind { NEW, REPEAT, REDELIVER }

    /** One generated event; {@code ref} picks the earlier event a repeat or re-delivery copies (modulo its position). */
    public record Draft(Kind kind, boolean delete, int key, int hour, int state, int login, int ref) {
    }

    private HorizonFeeds() {
    }

    /** The entity: key [id], tracked [name, tier], type-1 [last_login], the horizon {@link #HORIZON}. */
    public static EntitySpec spec(String name, String table) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        cols.put("tier", ColumnType.TEXT);
        cols.put("last_login", ColumnType.BIGINT);
        return EntitySpec.builder()
                .name(name)
                .table(table)
                .key(List.of("id"))
                .tracked(List.of("name", "tier"))
                .type1(List.of("last_login"))
                .columns(cols)
                .latenessHorizon(Optional.of(HORIZON))
                .build();
    }

    /** Feeds of 1 to {@code max} events, about one in five a repeat or re-delivery when {@code redeliveries}, else a repeat. */
    public static Arbitrary<List<Draft>> feeds(int max, boolean redeliveries) {
        Arbitrary<Kind> kind = Arbitraries.integers().between(0, 9)
                .map(i -> i < 8 ? Kind.NEW : i == 8 || !redeliveries ? Kind.REPEAT : Kind.REDELIVER);
        return Combinators.combine(kind,
                        Arbitraries.integers().between(0, 4).map(i -> i == 0),
                        Arbitraries.integers().between(0, KEYS.length - 1),
                        Arbitraries.integers().between(0, 11),
                        Arbitraries.integers().between(0, STATES.length - 1),
                        Arbitraries.integers().between(0, LOGINS.length - 1),
                        Arbitraries.integers().between(0, 1000))
                .as(Draft::new)
                .list().ofMinSize(1).ofMaxSize(max);
    }

    /**
     * The feed's events in arrival order: a NEW or REPEAT event at position i gets the next arrival
     * {@code seq} (1, 2, ...) and {@code Source.kafka("horizon", 0, seq)}; a REDELIVER is the
     * earlier event itself. The first draft is always NEW.
     */
    public static List<Event> events(List<Draft> drafts) {
        List<Event> out = new ArrayList<>();
        long seq = 0;
        for (int i = 0; i < drafts.size(); i++) {
            Draft d = drafts.get(i);
            Kind kind = i == 0 ? Kind.NEW : d.kind();
            if (kind == Kind.REDELIVER) {
                out.add(out.get(d.ref() % i));
                continue;
            }
            Draft content = kind == Kind.REPEAT ? drafts.get(origin(drafts, d.ref() % i)) : d;
            seq++;
            out.add(event(content, seq, Source.kafka("horizon", 0, seq)));
        }
        return out;
    }

    /** The native JSON line of each draft, a REDELIVER taken as a REPEAT (a file has no re-delivery: every line is an arrival). */
    public static List<String> jsonLines(List<Draft> drafts) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < drafts.size(); i++) {
            Draft d = drafts.get(i);
            Draft content = i == 0 || d.kind() == Kind.NEW ? d : drafts.get(origin(drafts, d.ref() % i));
            String id = "\"id\": \"" + KEYS[content.key()] + "\"";
            String time = "\"event_time\": \"" + time(content) + "\"";
            if (content.delete()) {
                out.add("{\"op\": \"delete\", " + time + ", \"data\": {" + id + "}}");
            } else {
                String[] s = STATES[content.state()];
                out.add("{\"op\": \"upsert\", " + time + ", \"data\": {" + id + ", \"name\": \"" + s[0] + "\", \"tier\": \"" + s[1]
                        + "\", \"last_login\": " + LOGINS[content.login()] + "}}");
            }
        }
        return out;
    }

    /** The NEW draft whose content draft {@code i} carries (a repeat of a repeat is of the first one). */
    private static int origin(List<Draft> drafts, int i) {
        while (i > 0 && drafts.get(i).kind() != Kind.NEW) {
            i = drafts.get(i).ref() % i;
        }
        return i;
    }

    private static Instant time(Draft d) {
        return BASE.plus(Duration.ofHours(d.hour()));
    }

    private static Event event(Draft d, long seq, Source source) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", KEYS[d.key()]);
        if (d.delete()) {
            return Event.delete(time(d), data, seq, source);
        }
        data.put("name", STATES[d.state()][0]);
        data.put("tier", STATES[d.state()][1]);
        data.put("last_login", LOGINS[d.login()]);
        return Event.upsert(time(d), data, seq, source);
    }
}
