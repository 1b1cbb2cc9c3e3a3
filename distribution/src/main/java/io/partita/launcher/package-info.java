/** Starts the Felix container from the plain class path and hands commands to the CLI bundle. */
package io.partita.launcher;
