package io.dimstream.admin.replay;

import io.dimstream.admin.web.ValueText;
import io.dimstream.db.jobs.ShadowPreviews;
import io.dimstream.db.read.ShadowDiff;
import io.dimstream.db.read.VersionRow;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The preview page of a READY job ({@code /replay/{id}/preview}): what its swap would change, each
 * differing key with its versions added and removed as text and links to its history in the live
 * table and in the shadow ({@code /history/{entity}?k=...&job=N}).
 *
 * @param limit how many keys the page asked for (the {@code limit} parameter)
 */
public record PreviewView(JobView job, String liveTable, String shadowTable, int mergedEvents, long keysAdded, long keysRemoved,
                          long keysChanged, long versionsAdded, long versionsRemoved, List<KeyRow> keys, boolean truncated, int limit) {

    /**
     * One differing key; a link is null where the key has no version (added: not in live; removed: not in the shadow).
     */
    public record KeyRow(String label, String kind, List<String> added, List<String> removed, String liveLink, String shadowLink) {
    }

    public long keysDiffering() {
        return keysAdded + keysRemoved + keysChanged;
    }

    static PreviewView of(ShadowPreviews.Preview p, String entity, int limit) {
        ShadowDiff d = p.diff();
        long id = p.job().id();
        List<KeyRow> rows = d.keys().stream().map(k -> {
            List<String> parts = k.key().values().stream().map(ValueText::text).toList();
            StringBuilder q = new StringBuilder("/history/").append(enc(entity));
            for (String part : parts) {
                q.append(q.indexOf("?") < 0 ? "?" : "&").append("k=").append(enc(part));
            }
            String live = q.toString();
            ShadowDiff.KeyDiff.Lines lines = k.lines(PreviewView::versionText);
            return new KeyRow(String.join(" / ", parts), k.kind().label(), lines.added(), lines.removed(),
                    k.kind() == ShadowDiff.Kind.ADDED ? null : live, k.kind() == ShadowDiff.Kind.REMOVED ? null : live + "&job=" + id);
        }).toList();
        return new PreviewView(JobView.of(p.job()), p.liveTable(), p.shadowTable(), p.mergedEvents(), d.keysAdded(), d.keysRemoved(),
                d.keysChanged(), d.versionsAdded(), d.versionsRemoved(), rows, d.truncated(), limit);
    }

    /** {@code [valid_from, valid_to) col=value, ...}, or {@code deleted}; NULL as {@code NULL}. */
    static String versionText(VersionRow v) {
        StringBuilder b = new StringBuilder("[").append(ValueText.time(v.validFrom())).append(", ")
                .append(v.validTo() == null ? "open" : ValueText.time(v.validTo())).append(')');
        if (v.deleted()) {
            return b.append(" deleted").toString();
        }
        String sep = " ";
        for (Map.Entry<String, Object> e : v.attributes().entrySet()) {
            String t = ValueText.text(e.getValue());
            b.append(sep).append(e.getKey()).append('=').append(t == null ? "NULL" : t);
            sep = ", ";
        }
        return b.toString();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
