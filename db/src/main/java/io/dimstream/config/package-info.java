/**
 * The YAML config (DESIGN section 4): parsed into typed records, {@code ${VAR}} substituted from
 * the environment, every problem reported with the path of its field, secrets masked when the
 * effective config is logged.
 */
package io.dimstream.config;
