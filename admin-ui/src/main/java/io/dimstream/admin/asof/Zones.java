package io.dimstream.admin.asof;

import java.time.ZoneId;
import java.util.List;

/** The time zones the pickers offer: UTC first, then every region id, sorted. */
public final class Zones {

    public static final List<String> ALL = build();

    private Zones() {
    }

    private static List<String> build() {
        List<String> rest = ZoneId.getAvailableZoneIds().stream().filter(z -> z.contains("/") && !z.startsWith("Etc/")
                && !z.startsWith("SystemV/")).sorted().toList();
        java.util.ArrayList<String> all = new java.util.ArrayList<>();
        all.add("UTC");
        all.addAll(rest);
        return List.copyOf(all);
    }
}
