/**
 * A whole database from one connector: the tables behind a {@code connectors:} entry of the config.
 *
 * <p>{@link io.dimstream.app.connect.ConnectorDiscovery} looks at the broker's topics, takes each
 * topic a connector covers that has no entity yet, reads the table's shape (key fields, typed
 * columns) from its first record's schema ({@link io.dimstream.app.connect.RecordShape}) and
 * records it in {@code dimstream.connector_tables}. From there
 * {@link io.dimstream.config.ConnectorEntities} makes each found table an entity read exactly as a
 * hand-declared one, at every start and in every command, so a found table's entity has the same
 * history, admin pages, replays, metrics and dbt sources as any other. While the service runs,
 * {@link io.dimstream.app.connect.ConnectorWatch} looks again every {@code discovery-interval}; a
 * table found then restarts the pipeline inside the process ({@code SupervisedService}) with the
 * new entity added after the others, so the sub-topologies of the others keep their numbers.
 */
package io.dimstream.app.connect;
