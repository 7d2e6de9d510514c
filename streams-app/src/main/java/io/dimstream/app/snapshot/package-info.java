/**
 * Producing snapshot feeds ({@code mode: snapshot}): {@link io.dimstream.app.snapshot.SnapshotPublisher}
 * checks a slice file whole, sends its rows stamped with the slice's instant, then an end-of-slice
 * marker ({@link io.dimstream.app.change.SliceMarker}) to every partition. What
 * {@code dimstream publish-snapshot} runs.
 */
package io.dimstream.app.snapshot;
