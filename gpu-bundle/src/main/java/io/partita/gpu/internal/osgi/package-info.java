/** The gpu engine as an OSGi service, configured through Config Admin (PID io.partita.gpu). */
package io.partita.gpu.internal.osgi;
