/**
 * {@code dimstream load}: events from a file or a query, applied in batches through the one apply
 * pipeline the streaming sink and replays use ({@link io.dimstream.db.apply.BatchApplier}, with no
 * position: loading the same input again is a no-op); parse errors and the writer's rejections are
 * reported with their line or row numbers.
 *
 * <p>Design notes:
 * <ul>
 *   <li><b>One loop, many sources.</b> {@link io.dimstream.app.load.EventFileLoader#load(io.dimstream.app.load.RowSource, String)}
 *       batches whatever a {@link io.dimstream.app.load.RowSource} yields: native JSON lines
 *       ({@link io.dimstream.app.load.JsonLinesSource}) or rows of a CSV file, a Parquet file or a
 *       query ({@link io.dimstream.app.load.TabularSource} over {@code io.dimstream.db.source.SourceRows}),
 *       each row an event or a rejection. A source maps names (entity columns, an operation
 *       column, a time column) and reads date and time texts with {@code io.dimstream.db.event.TimeTexts}
 *       (the event time, and the values of timestamptz, timestamp and date columns: the spellings
 *       PostgreSQL's, Spark's and pandas' exports have, texts without an offset only in
 *       {@code --time-zone}); the writer's {@code EventValidator} types every other value, so those are
 *       judged exactly as the same value in a Kafka record. Only load is this lenient with times: a
 *       record on a topic is an interface of its own, read strictly (ISO-8601, {@code T}, an offset).
 *       Text is as strict as on a topic: a file's JSON lines are read as bytes
 *       ({@link io.dimstream.app.load.ByteLines}) and each decoded by {@code StrictUtf8}, a line that
 *       is not UTF-8 or has content after its object refused on its own; CSV and Parquet text is
 *       checked by DuckDB's readers (a CSV row refused, a Parquet file stopped naming the value).</li>
 *   <li><b>A file's fields as the topic's.</b> {@link io.dimstream.app.load.LoadFields} does to each
 *       line or row what the topology's decode step does to a record of the entity's topic: the
 *       config's field rules ({@code io.dimstream.app.decode.Decoders#fieldRules}: {@code except:},
 *       undeclared fields dropped, unchanged values, {@code schema-evolution: lenient}'s carry-on) and
 *       the columns added while running ({@code io.dimstream.app.decode.NewFields}: a new field
 *       becomes a column in the batch's transaction, an added column a line lacks is carried on). A
 *       CSV or Parquet file is checked against the entity's shape with those columns.</li>
 *   <li><b>A batch is bounded by the heap as well as by its count.</b> A batch is held whole (the
 *       writer's statements run over all of it at once), so its events' estimated heap
 *       ({@link io.dimstream.app.load.EventHeap}) ends it at a sixth of the JVM's maximum heap before
 *       {@code load.batch-size} (100,000) does: wide rows make smaller batches, never an
 *       {@code OutOfMemoryError}; narrow rows get the big batches that load a big file fastest.</li>
 *   <li><b>Event time is never guessed.</b> Rows take it from a time column, one
 *       {@code --event-time} for all, or a slice's instant; not the clock, not a file's
 *       modification time (a copy changes it, and history must not depend on when it was loaded).</li>
 *   <li><b>Several connections, one writer lock.</b> {@link io.dimstream.app.load.ParallelLoad}
 *       validates a batch once (in as many slices, on as many threads, while PostgreSQL has nothing
 *       to do yet) and splits it by key over {@code --parallel} connections, each part in
 *       a transaction of its own, while one more connection holds the table's writer lock exclusive:
 *       a {@code load} beside the running service makes the sink wait for each batch instead of
 *       recomputing a key beside it.</li>
 *   <li><b>Slices without Kafka</b> ({@link io.dimstream.app.load.SliceLoader}): the rows as upserts
 *       at the slice's instant, then the slice recorded complete for every key and it and every
 *       later slice judged by the pipeline's delete of what is live at an instant, the step the sink
 *       runs for a slice's end-of-slice marker ({@code io.dimstream.db.snapshot}). A directory's slices are named by a regex with a group
 *       {@code t} ({@link io.dimstream.app.load.SliceFileNames}) and applied in time order.</li>
 * </ul>
 */
package io.dimstream.app.load;
