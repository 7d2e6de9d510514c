/**
 * Rows from outside dimstream, for {@code dimstream load}: a CSV or Parquet file, or the result of a
 * query on any JDBC source whose driver is on the classpath. Each row comes out as the file's or
 * query's column names and plain Java values ({@link io.dimstream.db.source.SourceRows}); what those
 * values mean for an entity (coercion to its column types, NULL key parts, limits) is decided once,
 * by {@link io.dimstream.db.event.EventValidator}, as for every other input.
 *
 * <p>Design notes:
 * <ul>
 *   <li><b>CSV and Parquet through DuckDB's JDBC driver</b> ({@code org.duckdb:duckdb_jdbc}, in-process,
 *       in-memory database, nothing written to disk). Chosen over parquet-java because one well-kept
 *       dependency reads both formats (and globs, compression, Spark's and pandas' Parquet encodings)
 *       and streams rows through an ordinary {@link java.sql.ResultSet}; parquet-java's reader
 *       ({@code parquet-hadoop}) needs Hadoop's {@code Configuration}/{@code FileSystem} classes
 *       (hadoop-common and its transitive tree, tens of jars) and a second library for CSV. The cost:
 *       {@code duckdb_jdbc-2.0.0.1.jar} is 80 MB (80,297,452 bytes; the native library for four
 *       platforms inside one jar), the largest part of the distribution. This module compiles against
 *       {@code java.sql} only (the URL {@code jdbc:duckdb:} names the driver); the command line puts
 *       the driver on the class path at run time, so {@code db}'s other users do not carry it.</li>
 *   <li><b>Streamed.</b> DuckDB is opened with {@code jdbc_stream_results=true} (without it the driver
 *       materializes the whole result in native memory) and read forward only; a query source runs
 *       with auto-commit off, a fetch size and read-only (PostgreSQL's driver holds a cursor only so),
 *       so no source is ever held in memory whole.</li>
 *   <li><b>CSV values are text.</b> The file is read with {@code all_varchar=true}: DuckDB's type
 *       guessing would turn {@code 00123} into 123 and a date-like code into a date; the entity's
 *       column types decide instead. An empty unquoted field is NULL, a quoted one ({@code ""}) the
 *       empty string ({@code allow_quoted_nulls=false}), so NULL and {@code ''} stay different, as the
 *       record hash needs. The first line is the header. A gzip file is read as gzip by its first two
 *       bytes, whatever its name ({@code compression} set, not DuckDB's guess from the extension), so a
 *       file of any name given with {@code load --format csv} reads alike.</li>
 *   <li><b>Malformed CSV rows are refused one by one</b> ({@link io.dimstream.db.source.SourceRows#csv}): the
 *       dialect is fixed (RFC 4180: comma, {@code "} quote, doubled to escape; the header's names read by
 *       hand, from the first line), since DuckDB's sniffer fails on a file with a quote left open and,
 *       given bad first rows, can settle on no quote at all. A first read with {@code store_rejects}
 *       counts the good rows and collects the bad ones from DuckDB's rejects table by record number
 *       (its {@code line} counts records, the header being 1); a second read streams the good rows, and
 *       the bad ones are put back between them by number, each with its error type and message. Both
 *       reads take every column ({@code hash(t)}, {@code SELECT *}): an error in a column a query does
 *       not read is not seen. {@code ignore_errors} alone is not used: DuckDB 1.5.6 then dropped every row
 *       after an unquoted-value error (not tried again since 2.0). The rejects table is only visible on a connection without
 *       {@code jdbc_stream_results}, so the first read has a connection of its own.</li>
 *   <li><b>Parquet text that is not UTF-8 is refused row by row</b> ({@link io.dimstream.db.source.SourceRows#parquet}):
 *       DuckDB's reader stops the file at such a value, or mends it ({@code utf8_validation}
 *       {@code 'replace'} or {@code 'ignore'}, since DuckDB 2.0). The file is read in both mending modes
 *       side by side ({@code POSITIONAL JOIN}: two streamed scans, no join table), the columns holding
 *       text only on the second; a row whose texts differ between the two held bytes that are not UTF-8
 *       and comes out refused, naming the column, whichever column it is (as a CSV row). Never a mended
 *       value. A column of Parquet's JSON type is checked by DuckDB as JSON in every mode: bad bytes
 *       there still stop the file.</li>
 *   <li><b>Typed values</b> (Parquet, queries) come out as the Java values {@link io.dimstream.db.entity.ColumnType#coerce}
 *       takes: integers as Long (or BigInteger), decimals as BigDecimal, timestamps with a zone as
 *       Instant, without as LocalDateTime, dates, times, UUIDs, bytes. Nested types (lists, structs,
 *       maps) are refused with the column's name: cast them in a query.</li>
 * </ul>
 */
package io.dimstream.db.source;
