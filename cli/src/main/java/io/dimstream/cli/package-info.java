/**
 * The {@code dimstream} command line (picocli): thin commands that parse arguments, call the
 * db and pipeline modules, and print. {@code demo} is the one command that starts several parts
 * at once. {@code replay} only writes a job row ({@code io.dimstream.db.jobs.ReplayJobs}); the
 * running service executes it. {@code dbt-sources} prints a dbt {@code sources.yml}
 * ({@code DbtSources}, written with Jackson's YAML module) from the config and the columns added
 * while running, read from the config's PostgreSQL ({@code --offline}: the config's only); its
 * entity list comes from one method, {@code DbtSources.entities}. Every command that names entities
 * reads the config with the tables its connectors found ({@code CommandSupport.loadResolvedConfig}).
 * {@code run}, {@code replay} and {@code publish-snapshot} first wait for the config's Kafka as
 * {@code --kafka-wait} says ({@code KafkaCheck}): what was tried and what to check on stderr, a
 * line per attempt, exit 69 when it gives up.
 */
package io.dimstream.cli;
