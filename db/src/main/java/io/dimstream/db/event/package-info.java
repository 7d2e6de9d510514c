/**
 * Events as the writer takes them: the native JSON codec, validation against an entity
 * (types, NULL key parts, unknown columns), the record hash and the surrogate key. Bad input
 * becomes a {@link io.dimstream.db.event.Rejection} naming the reason and the source position.
 */
package io.dimstream.db.event;
