/**
 * The {@code dimstream} command line (picocli): thin commands that parse arguments, call the
 * db and pipeline modules, and print. {@code demo} is the one command that starts several parts
 * at once. {@code replay} only writes a job row ({@code io.dimstream.db.jobs.ReplayJobs}); the
 * running service executes it. {@code dbt-sources} prints a dbt {@code sources.yml}
 * ({@code DbtSources}, written with Jackson's YAML module) from the config and the columns added
 * while running, read from the config's PostgreSQL ({@code --offline}: the config's only); its
 * entity list comes from one method, {@code DbtSources.entities}.
 */
package io.dimstream.cli;
