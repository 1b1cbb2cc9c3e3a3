/** The commands that load, partition and run graphs, shared by the CLI and the Gogo shell. */
package io.partita.cli.run;
