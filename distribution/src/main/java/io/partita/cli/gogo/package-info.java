/** Gogo shell commands in the {@code partita} scope. */
package io.partita.cli.gogo;
