/** The {@code partita} command line: a picocli command tree run inside the container. */
package io.partita.cli;
