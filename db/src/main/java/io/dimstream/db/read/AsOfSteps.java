package io.dimstream.db.read;

import java.time.Instant;

/**
 * Where an instant {@code at} stands among the distinct {@code valid_from} instants of an entity's
 * table (every change, delete rows included): the steps of the as-of stepper. Each is null when
 * there is none (an empty table; an instant before the first change has no {@code current}).
 *
 * @param first    the table's first change
 * @param previous the change before {@code current} (the previous state of the table)
 * @param current  the latest change at or before {@code at}: the table as of {@code at} is the
 *                 table as of {@code current}, and its rows with {@code valid_from = current}
 *                 are the ones that changed since {@code previous}
 * @param next     the first change after {@code at}
 * @param last     the table's last change
 */
public record AsOfSteps(Instant at, Instant first, Instant previous, Instant current, Instant next, Instant last) {
}
