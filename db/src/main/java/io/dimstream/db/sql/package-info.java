/** The one place identifiers become SQL text (quoting), so no name or value is ever pasted raw. */
package io.dimstream.db.sql;
