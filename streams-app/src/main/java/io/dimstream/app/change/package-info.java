/**
 * The changes topic between the Kafka Streams topology and the PostgreSQL sink: one JSON record
 * per classified event, keyed by the business key so a key's events share a partition.
 */
package io.dimstream.app.change;
