package io.dimstream.admin.replay;

import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.Params;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import java.time.Instant;
import java.time.ZoneId;
import java.util.function.Function;

/**
 * A replay request as the form (or the JSON body) states it; {@link #resolve} checks it and turns
 * it into what {@code ReplayJobs.submit} takes, every refusal a {@link BadRequest} naming the field.
 *
 * @param from    {@code earliest}, {@code instant} (with {@code at} and {@code tz}) or {@code offsets}
 * @param at      with from=instant: an ISO-8601 instant with offset, or a local date-time read in {@code tz}
 * @param offsets with from=offsets: {@code partition:offset,...}, e.g. {@code 0:120,2:0}
 * @param topic   blank or the entity's own topic; any other is refused (see {@link #resolve})
 * @param noSwap  {@code no_swap}: blank, or {@code on}/{@code true} (the form's checkbox, the JSON boolean) to stop a
 *                shadow job READY before its swap
 * @param keys    blank, or a repair of these keys only (live target): {@code K1,K2}, or JSON objects naming the key
 *                columns for a key of several ({@link ReplayKeys#parseKeys})
 * @param keyPrefix blank, or a repair of the keys whose first (text) key column starts with it
 */
public record ReplayRequest(String entity, String topic, String from, String at, String tz, String offsets, String target,
                            String noSwap, String keys, String keyPrefix) {

    /** What the form shows before anything was entered (for {@code entity}, when given). */
    static ReplayRequest blank(String entity, String topic) {
        return new ReplayRequest(entity, topic, "earliest", "", "UTC", "", "live", "", "", "");
    }

    static ReplayRequest read(Function<String, String> field) {
        return new ReplayRequest(n(field.apply("entity")), n(field.apply("topic")), n(field.apply("from")), n(field.apply("at")),
                n(field.apply("tz")), n(field.apply("offsets")), n(field.apply("target")), n(field.apply("no_swap")),
                n(field.apply("keys")), n(field.apply("key_prefix")));
    }

    private static String n(String s) {
        return s == null ? "" : s.trim();
    }

    /** The form's checkbox is ticked. */
    public boolean noSwapChecked() {
        return noSwap.equals("on") || noSwap.equals("true");
    }

    /** The checked request. */
    record Resolved(String entity, String topic, ReplaySource source, ReplayTarget target, boolean noSwap, ReplayKeys keys) {
    }

    Resolved resolve(EntityCatalog catalog) {
        if (entity.isEmpty()) {
            throw new BadRequest("entity: choose the entity to replay");
        }
        if (!catalog.names().contains(entity)) {
            throw new BadRequest("entity: no entity named \"" + entity + "\" (configured: " + String.join(", ", catalog.names()) + ")");
        }
        // only the entity's own source topic: another entity's topic, a dead-letter topic (its records
        // go back through re-drive, which keeps their origin) or an internal topic would feed the live
        // table records that are not this entity's events. dimstream replay --topic (an operator with
        // the config and the database) may still read an archive copy of the topic.
        String own = catalog.topic(entity);
        if (!topic.isEmpty() && !topic.equals(own)) {
            throw new BadRequest("topic: a replay of " + entity + " reads its own topic " + own + ", not \"" + topic
                    + "\" (dead letters go back through re-drive on the DLQ page)");
        }
        String t = own;
        ReplaySource source = switch (from.isEmpty() ? "earliest" : from) {
            case "earliest" -> ReplaySource.earliest();
            case "instant" -> {
                ZoneId zone = Params.zone("tz", tz);
                Instant i = Params.instant("at", at, zone, null);
                if (i == null) {
                    throw new BadRequest("at: from=instant needs the instant to start at (e.g. 2025-08-01T00:00 in the chosen time zone)");
                }
                yield ReplaySource.at(i);
            }
            case "offsets" -> {
                if (offsets.isEmpty() || !offsets.matches("\\d+:\\d+(\\s*,\\s*\\d+:\\d+)*")) {
                    throw new BadRequest("offsets: from=offsets needs partition:offset,... (e.g. 0:120,2:0), got \"" + offsets + "\"");
                }
                try {
                    yield ReplaySource.parse(offsets);
                } catch (IllegalArgumentException e) {
                    throw new BadRequest("offsets: " + e.getMessage().replaceFirst("^from: ", ""));
                }
            }
            default -> throw new BadRequest("from: must be earliest, instant or offsets, got \"" + from + "\"");
        };
        ReplayTarget tg;
        try {
            tg = ReplayTarget.parse(target.isEmpty() ? "live" : target);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
        boolean stop = switch (noSwap) {
            case "", "false", "off" -> false;
            case "on", "true" -> true;
            default -> throw new BadRequest("no_swap: must be true or false, got \"" + noSwap + "\"");
        };
        if (stop && tg != ReplayTarget.SHADOW) {
            throw new BadRequest("no_swap: only a shadow replay stops before its swap (target is " + tg.sql() + ")");
        }
        ReplayKeys only = null;
        try {
            if (!keys.isEmpty() && !keyPrefix.isEmpty()) {
                throw new IllegalArgumentException("keys: give the keys or a key prefix, not both");
            }
            if (!keys.isEmpty()) {
                only = ReplayKeys.parseKeys("keys", keys, catalog.configSpec(entity));
            } else if (!keyPrefix.isEmpty()) {
                only = ReplayKeys.parsePrefix("key_prefix", keyPrefix, catalog.configSpec(entity));
            }
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
        if (only != null && tg != ReplayTarget.LIVE) {
            throw new BadRequest((keys.isEmpty() ? "key_prefix" : "keys") + ": a repair of some keys writes the live table; "
                    + "a shadow of some keys would replace the whole table");
        }
        return new Resolved(entity, t, source, tg, stop, only);
    }
}
