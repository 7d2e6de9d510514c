package io.dimstream.db.apply;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.sink.SinkReject;
import io.dimstream.db.write.ApplyResult;
import java.util.List;

/**
 * What one batch did, as values (nothing of it is kept in fields between batches).
 *
 * @param prepared the source's steps as it made them
 * @param shape    the entity's shape the batch was applied with (columns added by it included)
 * @param events   what the writer made of the batch's events
 * @param deletes  what the writer made of the deletes of the {@link Step.DeleteLiveAt} steps
 * @param rejects  every record kept in the rejects: those the source refused, then those of the events PostgreSQL refused
 * @param isolated whether PostgreSQL refused the batch once and it was applied again with the refused events isolated
 */
public record Applied<P extends Prepared>(P prepared, EntitySpec shape, ApplyResult events, ApplyResult deletes, List<SinkReject> rejects,
                                          boolean isolated) {

    public Applied {
        rejects = List.copyOf(rejects);
    }

    /** Events and deletes together. */
    public ApplyResult result() {
        return events.plus(deletes);
    }

    /** The events the writer refused (invalid, or refused by PostgreSQL), with the reasons. */
    public List<Rejection> refused() {
        return events.rejected();
    }

    /** Version rows inserted, updated and deleted. */
    public long rowsChanged() {
        ApplyResult r = result();
        return (long) r.rowsInserted() + r.rowsUpdated() + r.rowsDeleted();
    }
}
