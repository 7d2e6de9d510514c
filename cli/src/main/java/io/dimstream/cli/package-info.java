/**
 * The {@code dimstream} command line (picocli): thin commands that parse arguments, call the
 * db and pipeline modules, and print. {@code demo} is the one command that starts several parts
 * at once. {@code replay} only writes a job row ({@code io.dimstream.db.jobs.ReplayJobs}); the
 * running service executes it. {@code dbt-sources} reads the config only and prints a dbt
 * {@code sources.yml} ({@code DbtSources}, written with Jackson's YAML module).
 */
package io.dimstream.cli;
