/**
 * Avro side of dimstream: the schemas under {@code src/main/avro} (the demo entity and the records
 * dimstream itself emits) and, in subpackages, a Confluent-wire-format Avro serde with a small
 * schema registry client.
 */
package io.dimstream.schemas;
