/** The backend as an OSGi service, configured through Config Admin (PID io.partita.backend.dnnl). */
package io.partita.backend.dnnl.internal.osgi;
