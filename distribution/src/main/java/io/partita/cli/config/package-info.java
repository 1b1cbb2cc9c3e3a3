/** Reports on the container's configuration files (FileInstall's {@code conf/*.cfg}). */
package io.partita.cli.config;
