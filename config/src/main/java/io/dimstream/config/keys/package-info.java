/**
 * Every key of the config declared once ({@link io.dimstream.config.keys.ConfigKeys}: a
 * {@link io.dimstream.config.keys.ConfigKey} with its path, type, parser, default, validation,
 * description and secret flag, grouped in {@link io.dimstream.config.keys.ConfigSection}s), the values a
 * file gave them ({@link io.dimstream.config.keys.ConfigValues}, an entity's
 * {@link io.dimstream.config.keys.EntityValues}), the rules that involve several of an entity's keys
 * ({@link io.dimstream.config.keys.EntityRules}, {@link io.dimstream.config.keys.EntityKeyParsers}), the
 * admin section's accounts ({@link io.dimstream.config.keys.AdminSection}), the sections' defaults
 * ({@link io.dimstream.config.keys.ConfigDefaults}) and the generated reference
 * ({@link io.dimstream.config.keys.ConfigReference}). Uses the model; the reader above uses it.
 */
package io.dimstream.config.keys;
