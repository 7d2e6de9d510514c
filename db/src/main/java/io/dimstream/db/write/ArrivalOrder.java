package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.TypedEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A batch in its arrival order (each event's {@code seq}): the writer judges every event (late,
 * beyond the lateness horizon, duplicate, its class) as if the events had come one at a time, so
 * the table, the quarantine and the counts are the same however the input was cut into batches
 * (docs/semantics.md, "Lateness horizon").
 *
 * <p>Two things make a batch judge as one-at-a-time does:
 * <ul>
 *   <li><b>Rounds.</b> A key's events, in seq order, are cut where one meets an earlier event of
 *       the batch at the same event time (a same-time tie, or a repeat with another seq): from there
 *       on the key's events go to the next round, and the rounds are applied one after the other in
 *       the batch's transaction (a re-delivery, same seq and time, waits in a round after all the
 *       others instead: it changes nothing). Within a round a key has one event per event time, so each event
 *       meets the remembered events (the memory, and the rounds before) just as it would alone.
 *       Whether the later one wins, is a duplicate, or is quarantined while the earlier one stays
 *       is then decided against what is remembered, as for any event.</li>
 *   <li><b>What the round's earlier arrivals say.</b> For an event with earlier events of its key
 *       in its round, the newest of them ({@link Arrived#newest}) and, for the event that replaces
 *       the key's newest remembered event, the latest of them before its time within the horizon
 *       of it ({@link Arrived#before}). The classify statement combines them with the memory's:
 *       the newest at arrival is the later of the memory's newest and {@code newest}; the event
 *       before at arrival the later of the memory's event before and {@code before}.</li>
 * </ul>
 *
 * <p>Why these suffice. An event never applied (quarantined) is older than the newest at its arrival,
 * so the newest of ALL the earlier arrivals is the newest of the applied ones. {@code before} is
 * only read for an event at the time of the memory's newest event {@code t}; an earlier arrival
 * older than {@code t} by more than the horizon is then beyond it (quarantined, never an event
 * before anything), and one beyond the horizon of the newest of the round's arrivals before it
 * too, so both are left out here; a repeat of a remembered event has its content, hence its state.
 *
 * <p>Cost: one hash lookup per event; keys with one event in the batch (an in-order stream's
 * common case) get nothing more, and the batch is one round unless a key has two events at one time.
 */
final class ArrivalOrder {

    /**
     * An event of a round.
     *
     * @param single the key's only event in its round (a candidate for the writer's fast path)
     * @param newest the newest of the round's earlier arrivals of the key (null: none)
     * @param before the latest of them older than the event and not older than it by more than the
     *               horizon, none beyond the horizon of the newest before it (null: none)
     */
    record Arrived(TypedEvent event, boolean single, TypedEvent newest, TypedEvent before) {

        /** Whether the round's earlier arrivals say anything (else the event is COPYed without those columns). */
        boolean hasEarlier() {
            return newest != null;
        }
    }

    private ArrivalOrder() {
    }

    /**
     * The rounds of a batch, applied in this order; the first holds every key's first events (all
     * of them when no key has two events at one time). Events keep the batch's order within a round.
     */
    static List<List<Arrived>> rounds(EntitySpec entity, List<TypedEvent> events) {
        int nKey = entity.key().size();
        Map<List<Object>, Object> byKey = new HashMap<>(Math.max(16, events.size() * 4 / 3 + 1));
        boolean several = false;
        for (TypedEvent te : events) {
            List<Object> key = te.keyIdentity(nKey);
            Object prev = byKey.putIfAbsent(key, te);
            if (prev != null) {
                several = true;
                if (prev instanceof TypedEvent first) {
                    List<TypedEvent> all = new ArrayList<>(4);
                    all.add(first);
                    byKey.put(key, all);
                    prev = all;
                }
                @SuppressWarnings("unchecked")
                List<TypedEvent> all = (List<TypedEvent>) prev;
                all.add(te);
            }
        }
        List<List<Arrived>> rounds = new ArrayList<>();
        rounds.add(new ArrayList<>(events.size()));
        if (!several) {
            for (TypedEvent te : events) {
                rounds.get(0).add(new Arrived(te, true, null, null));
            }
            return rounds;
        }
        Duration horizon = entity.latenessHorizon().orElse(null);
        List<List<TypedEvent>> redelivered = new ArrayList<>();
        for (Object group : byKey.values()) {
            if (group instanceof TypedEvent only) {
                rounds.get(0).add(new Arrived(only, true, null, null));
            } else {
                @SuppressWarnings("unchecked")
                List<TypedEvent> all = (List<TypedEvent>) group;
                arrive(all, horizon, rounds, redelivered);
            }
        }
        // the re-deliveries after everything else, the n-th copy of an event in the n-th round after
        // the last; off the fast path (a key may have several there), which one takes only when its
        // first delivery was refused by PostgreSQL
        for (List<TypedEvent> copies : redelivered) {
            List<Arrived> round = new ArrayList<>(copies.size());
            copies.forEach(te -> round.add(new Arrived(te, false, null, null)));
            rounds.add(round);
        }
        return rounds;
    }

    /**
     * One key's events, sorted by seq (stable: list order among equal seqs), into the rounds. An
     * event again (same seq and time: a re-delivery) is judged as its first delivery was: a
     * duplicate when that was applied or a duplicate, quarantined again (kept once) when that was;
     * it changes nothing, so it waits for a round after the others ({@code redelivered}, the n-th
     * copy of an event in list n) instead of pushing the key's later arrivals into another round.
     */
    private static void arrive(List<TypedEvent> keyEvents, Duration horizon, List<List<Arrived>> rounds, List<List<TypedEvent>> redelivered) {
        List<TypedEvent> sorted = new ArrayList<>(keyEvents.size());
        Map<List<Object>, Integer> copies = new HashMap<>();
        List<TypedEvent> bySeq = new ArrayList<>(keyEvents);
        bySeq.sort(Comparator.comparingLong(TypedEvent::seq));
        for (TypedEvent te : bySeq) {
            int n = copies.merge(List.of(te.seq(), te.eventTime()), 1, Integer::sum) - 1;
            if (n == 0) {
                sorted.add(te);
            } else {
                while (redelivered.size() < n) {
                    redelivered.add(new ArrayList<>());
                }
                redelivered.get(n - 1).add(te);
            }
        }
        int[] roundOf = new int[sorted.size()];
        int round = 0;
        Set<Instant> times = new HashSet<>();
        for (int i = 0; i < sorted.size(); i++) {
            if (!times.add(sorted.get(i).eventTime())) {
                round++;
                times.clear();
                times.add(sorted.get(i).eventTime());
            }
            roundOf[i] = round;
        }
        while (rounds.size() <= round) {
            rounds.add(new ArrayList<>());
        }
        int start = 0;
        while (start < sorted.size()) {
            int end = start;
            while (end < sorted.size() && roundOf[end] == roundOf[start]) {
                end++;
            }
            List<Arrived> target = rounds.get(roundOf[start]);
            boolean single = end - start == 1;
            TypedEvent newest = null;
            TreeMap<Instant, TypedEvent> placed = new TreeMap<>(); // the round's earlier arrivals not beyond the horizon
            for (int i = start; i < end; i++) {
                TypedEvent e = sorted.get(i);
                Instant t = e.eventTime();
                Map.Entry<Instant, TypedEvent> lower = placed.lowerEntry(t);
                TypedEvent before = lower == null || (horizon != null && lower.getKey().isBefore(t.minus(horizon))) ? null : lower.getValue();
                target.add(new Arrived(e, single, newest, before));
                if (horizon == null || newest == null || !t.isBefore(newest.eventTime().minus(horizon))) {
                    placed.put(t, e);
                }
                if (newest == null || t.isAfter(newest.eventTime())) {
                    newest = e;
                }
            }
            start = end;
        }
    }
}
