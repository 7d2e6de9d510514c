package io.dimstream.cli;

import io.dimstream.app.load.LoadReport;
import io.dimstream.db.write.ApplyResult;

/**
 * The refused and taken rows of every report of one {@code load} (a directory has one per slice),
 * and the exit code they make: {@value #REJECTED} when every row was refused, or any with
 * {@code --fail-on-reject}; else 0.
 */
final class LoadTally {

    /** Exit code: rows were refused (every one, or any with {@code --fail-on-reject}); the others were applied. */
    static final int REJECTED = 3;

    private final String unit;
    private long refused;
    private long taken;

    /** @param unit "line" or "row", as the report names them */
    LoadTally(String unit) {
        this.unit = unit;
    }

    LoadReport add(LoadReport report) {
        ApplyResult r = report.result();
        refused += report.rejections().size();
        taken += r.applied() + r.duplicates() + r.quarantined() + r.erased();
        return report;
    }

    /**
     * 0, or a {@link CliFailure} with {@link #REJECTED} saying how many were refused (the report
     * above gives each with its reason).
     */
    int exitCode(boolean failOnReject) {
        if (refused == 0) {
            return 0;
        }
        long all = refused + taken;
        if (taken == 0) {
            throw new CliFailure(REJECTED, "every " + unit + " was refused (" + refused + " of " + all + "), nothing was applied; "
                    + "the reasons are above", null);
        }
        if (failOnReject) {
            throw new CliFailure(REJECTED, refused + " of " + all + " " + unit + "s were refused (--fail-on-reject); the other "
                    + taken + " were applied; the reasons are above", null);
        }
        return 0;
    }
}
