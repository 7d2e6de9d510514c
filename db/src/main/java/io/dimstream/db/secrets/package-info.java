/**
 * Keeping secrets out of printed text: {@link io.dimstream.db.secrets.Secrets#mask} is the one
 * function every printed URL, error message and config value goes through. It sits at the bottom
 * of the db module so that both the configuration (the dimstream-config module) and the connection
 * code ({@code io.dimstream.db.connect}) can use it without the two depending on each other.
 */
package io.dimstream.db.secrets;
