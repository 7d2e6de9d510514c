/**
 * {@code dimstream load}: native JSON events from a file, applied in batches through the same
 * writer the streaming sink uses; parse errors and the writer's rejections are reported with
 * their line numbers.
 */
package io.dimstream.app.load;
