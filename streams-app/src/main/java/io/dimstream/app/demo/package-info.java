/** The demo: a generated customer change feed produced to the embedded broker. */
package io.dimstream.app.demo;
