/**
 * Reading JSON from outside: {@link io.dimstream.db.json.InputJson}, the one mapper with dimstream's
 * input limits and exact decimals, and the one wording of why a text is not read.
 */
package io.dimstream.db.json;
