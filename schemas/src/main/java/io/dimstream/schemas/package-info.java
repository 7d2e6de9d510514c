/**
 * Avro side of dimstream: the schemas under {@code src/main/avro} (the demo entity and the records
 * dimstream itself emits, loaded by {@link io.dimstream.schemas.DemoSchemas}), {@link io.dimstream.schemas.AvroValues}
 * (generic records to the plain Java values dimstream's writer takes) and, in subpackages, a
 * Confluent-wire-format Avro serde ({@code serde}) with a small schema registry client ({@code registry}).
 *
 * <p>{@link io.dimstream.schemas.AvroValues} works on any {@code GenericRecord}, whichever deserializer
 * produced it: dimstream's own {@code AvroWireDeserializer} or Confluent's {@code KafkaAvroDeserializer}
 * (with or without its logical type converters). Its strings are decoded strictly by
 * {@code io.dimstream.db.event.StrictUtf8} (the module depends on {@code db} for that one class), so
 * Avro text is refused exactly where JSON text is; dimstream's deserializer reads every string as
 * Avro's {@code Utf8}, its bytes as written, whatever {@code avro.java.string} says.
 */
package io.dimstream.schemas;
