package io.dimstream.cli;

import io.dimstream.app.load.LoadReport;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.write.ApplyResult;
import java.io.PrintWriter;
import java.util.List;

/** Prints what a load did: one count per line, then each refused line or row with its reason. */
final class LoadReportPrinter {

    private LoadReportPrinter() {
    }

    static void print(PrintWriter out, LoadReport report) {
        print(out, report, "line");
    }

    /** As above, each refused input named as {@code unit N} ("line" of a text file, "row" of a table). */
    static void print(PrintWriter out, LoadReport report, String unit) {
        ApplyResult r = report.result();
        List<Rejection> rejections = report.rejections();
        count(out, "applied", r.applied());
        count(out, "new", r.newKeys());
        count(out, "changed", r.changed());
        count(out, "deleted", r.deleted());
        count(out, "unchanged", r.unchanged());
        count(out, "late", r.late());
        count(out, "duplicates", r.duplicates());
        count(out, "quarantined", r.quarantined());
        if (r.erased() > 0) {
            // events of keys erased with a tombstone (dimstream erase): only shown when there are some
            count(out, "erased", r.erased());
        }
        count(out, "rejected", rejections.size());
        for (Rejection x : rejections) {
            out.println(unit + " " + x.source().offset() + ": " + x.reason());
        }
        out.flush();
    }

    private static void count(PrintWriter out, String name, long n) {
        out.printf("%-12s %8d%n", name, n);
    }
}
