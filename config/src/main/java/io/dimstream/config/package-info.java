/**
 * The YAML config (DESIGN section 4), in three layers: this package reads a file
 * ({@link io.dimstream.config.DimstreamConfig#parse}, {@code ConfigReader}, {@code EnvSubstitution})
 * into the model; {@link io.dimstream.config.model} holds the records and enums the rest of dimstream
 * takes (one per section, the entities' options); {@link io.dimstream.config.keys} declares every key
 * with its parser, default and description and the rules that span several keys. Dependencies point
 * one way: this package uses both, keys uses the model, the model uses neither (its sections' defaults
 * are {@link io.dimstream.config.keys.ConfigDefaults}). The config is parsed into typed records, {@code ${VAR}} substituted from
 * the environment, every problem reported with the path of its field. Each key is declared once in
 * {@link io.dimstream.config.keys.ConfigKeys} (a {@link io.dimstream.config.keys.ConfigKey}: path, type,
 * default, validation, description, secret flag), which drives the reading, the defaults, the
 * masked dump ({@code DimstreamConfig.describeMasked}) and the generated
 * {@code docs/config-reference.md} ({@link io.dimstream.config.keys.ConfigReference}); the entities'
 * keys too, each item of {@code entities:} bound to them ({@code EntityValues}), the rules that
 * involve several of an entity's keys in one place ({@code EntityRules}). Everything printed passes
 * {@link io.dimstream.db.secrets.Secrets#mask}, the one masking function (URL parameters and user
 * info, JAAS options, secret-named properties such as {@code basic.auth.user.info}); setting maps
 * ({@code kafka.client}, {@code deserializer-config}) print masked even through {@code toString}. An entity's {@link io.dimstream.config.model.FeedMode} says whether its topic
 * carries change events ({@code changes}) or full slices ({@code snapshot}, with the row field that
 * holds a slice's instant, {@code snapshot-time-field}). Column types may carry a modifier
 * ({@code varchar(n)}, {@code numeric(p,s)}). A Debezium entity's {@code encodings:} name, per column,
 * the semantic type its values are encoded as in records without a schema
 * ({@link io.dimstream.config.model.ValueEncoding}), checked against the column's type; names PostgreSQL would cut (over 63 bytes; tables over
 * 49) or that the writer's SQL uses for its own columns are refused naming the field. A key that
 * takes one of a few names ({@code format}, {@code mode}, {@code on-truncate}, a role, ...) is an
 * enum implementing {@link io.dimstream.config.model.ConfigEnum}, read and refused (naming the path and
 * the accepted names) by {@link io.dimstream.config.model.ConfigEnum#parse} alone.
 *
 * <p>{@code connectors:} ({@link io.dimstream.config.keys.ConnectorKeys},
 * {@link io.dimstream.config.model.ConnectorConfig}) names a change-data-capture connector's topics
 * instead of its tables; the tables found behind it (by the service, recorded in
 * {@code dimstream.connector_tables}) become entities through
 * {@link io.dimstream.config.ConnectorEntities}, which reads each as an item of {@code entities:}
 * (the connector's keys, then the found key and columns), so a found entity is a hand-declared one
 * in every respect; {@link io.dimstream.config.DimstreamConfig#withEntities} is the config with them.
 */
package io.dimstream.config;
