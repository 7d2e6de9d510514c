/**
 * The config as the rest of dimstream takes it: one immutable record per section
 * ({@link io.dimstream.config.model.PostgresConfig}, {@link io.dimstream.config.model.KafkaConfig},
 * {@link io.dimstream.config.model.SinkConfig}, {@link io.dimstream.config.model.ServiceConfig},
 * {@link io.dimstream.config.model.AdminConfig}), each entity's options
 * ({@link io.dimstream.config.model.EntityConfig}, {@link io.dimstream.config.model.CdcOptions},
 * {@link io.dimstream.config.model.AvroOptions}, {@link io.dimstream.config.model.SeedJsonOptions}) and
 * the enums a key takes one name of ({@link io.dimstream.config.model.ConfigEnum}). Depends on no other
 * package of the config: the keys that fill it and their defaults live in {@code io.dimstream.config.keys}.
 */
package io.dimstream.config.model;
