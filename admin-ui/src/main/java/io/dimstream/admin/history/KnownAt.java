package io.dimstream.admin.history;

import io.dimstream.admin.history.HistoryView.Known;
import io.dimstream.admin.history.HistoryView.Lineage;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.KnownHistory;
import io.dimstream.db.read.KnownHistory.Belief;
import io.dimstream.db.read.KnownHistory.Correction;
import io.dimstream.db.read.VersionRow;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The history page in transaction time ({@code known=}, docs/querying.md "History of a key"): the
 * key's versions as the table stood at an instant and the corrections list, both from
 * {@link KnownHistory}, turned into what the page and its JSON twin show. Only for an entity that
 * keeps transaction time, on its live table.
 */
public final class KnownAt {

    /**
     * One version image of the corrections list: its period and state as the image said, its tracked
     * values, when it was believed, and the lineage of the event that made it.
     */
    public record Image(Instant validFrom, Instant validTo, String state, Map<String, Object> values, Instant knownFrom, Instant knownTo,
                        Lineage lineage) {
    }

    /**
     * An image a later arrival superseded (believed {@code known_from} .. {@code known_to}) and the
     * images the same transaction wrote ({@code known_from} = its {@code known_to}); {@code number}
     * is the one the version table's marks and the lane's titles give ({@code #1}).
     */
    public record CorrectionView(int number, Image superseded, List<Image> replacements) {
    }

    /** What the page reads: the versions (with their beliefs, one each) and the key's corrections. */
    record Read(List<VersionRow> rows, List<Known> known, List<CorrectionView> corrections) {
    }

    private KnownAt() {
    }

    /**
     * The {@code known=} instant (the forms {@code from}/{@code to} accept), or null; refused with 400
     * for an entity that keeps no transaction time, and for a replay job's shadow table.
     */
    static Instant param(EntitySpec live, Long job, String raw) {
        Instant known = HistoryPage.instant("known", raw);
        if (known == null) {
            return null;
        }
        if (!live.transactionTime()) {
            throw new BadRequest("known: entity " + live.name() + " does not keep transaction time (transaction-time: false), so its "
                    + "history as known at an earlier instant is not recorded; leave out known");
        }
        if (job != null) {
            throw new BadRequest("known: the shadow table of replay job #" + job + " keeps no transaction time of its own; "
                    + "leave out known or job");
        }
        return known;
    }

    /** The key's versions as known at {@code known} (null: now) and its corrections, marked on each other. */
    static Read read(KnownHistory history, EntitySpec e, List<Object> key, Instant known) throws SQLException {
        List<Belief> shown = history.history(e, key, known);
        List<Correction> corrections = history.corrections(e, key);
        List<CorrectionView> views = new ArrayList<>();
        for (int i = 0; i < corrections.size(); i++) {
            Correction c = corrections.get(i);
            views.add(new CorrectionView(i + 1, image(e, c.superseded()), c.replacements().stream().map(b -> image(e, b)).toList()));
        }
        List<Known> marks = new ArrayList<>();
        for (Belief b : shown) {
            Integer correctedBy = null;
            List<Integer> corrects = new ArrayList<>();
            for (int i = 0; i < corrections.size(); i++) {
                Correction c = corrections.get(i);
                if (same(c.superseded(), b)) {
                    correctedBy = i + 1;
                }
                if (c.replacements().stream().anyMatch(r -> same(r, b))) {
                    corrects.add(i + 1);
                }
            }
            marks.add(new Known(b.knownFrom(), b.knownTo(), correctedBy, corrects));
        }
        return new Read(shown.stream().map(Belief::row).toList(), marks, views);
    }

    /** The same image: one version ({@code valid_from}) believed over the same interval. */
    private static boolean same(Belief a, Belief b) {
        return a.row().validFrom().equals(b.row().validFrom()) && Objects.equals(a.knownFrom(), b.knownFrom())
                && Objects.equals(a.knownTo(), b.knownTo());
    }

    private static Image image(EntitySpec e, Belief b) {
        VersionRow r = b.row();
        Map<String, Object> values = new LinkedHashMap<>();
        e.tracked().forEach(c -> values.put(c, r.attributes().get(c)));
        String state = r.deleted() ? "deleted" : r.validTo() == null ? "current" : "closed";
        return new Image(r.validFrom(), r.validTo(), state, values, b.knownFrom(), b.knownTo(),
                new Lineage(r.sourceTopic(), r.sourcePartition(), r.sourceOffset(), r.loadedAt()));
    }
}
