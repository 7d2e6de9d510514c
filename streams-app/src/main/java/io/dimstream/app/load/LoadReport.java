package io.dimstream.app.load;

import io.dimstream.db.event.Rejection;
import io.dimstream.db.write.ApplyResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What loading a file did.
 *
 * @param result          the writer's results of all batches, summed
 * @param parseRejections lines that were not a native event at all (never reached the writer)
 * @param lines           lines read, blank ones included
 * @param batches         writer transactions committed
 */
public record LoadReport(ApplyResult result, List<Rejection> parseRejections, long lines, int batches) {

    public LoadReport {
        parseRejections = List.copyOf(parseRejections);
    }

    /** Every refused line, the parser's and the writer's, in line order. */
    public List<Rejection> rejections() {
        List<Rejection> all = new ArrayList<>(parseRejections);
        all.addAll(result.rejected());
        all.sort(Comparator.comparing(r -> r.source().offset(), Comparator.nullsFirst(Comparator.naturalOrder())));
        return all;
    }
}
