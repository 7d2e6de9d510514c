/**
 * The YAML config (DESIGN section 4): parsed into typed records, {@code ${VAR}} substituted from
 * the environment, every problem reported with the path of its field, secrets masked when the
 * effective config is logged. An entity's {@link io.dimstream.config.FeedMode} says whether its topic
 * carries change events ({@code changes}) or full slices ({@code snapshot}, with the row field that
 * holds a slice's instant, {@code snapshot-time-field}).
 */
package io.dimstream.config;
