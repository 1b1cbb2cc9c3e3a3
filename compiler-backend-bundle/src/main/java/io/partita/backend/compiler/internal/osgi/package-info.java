/** The graph compiler as an OSGi service, configured through Config Admin (PID io.partita.backend.compiler). */
package io.partita.backend.compiler.internal.osgi;
