/** The caches as an OSGi service, configured through Config Admin (PID io.partita.cache). */
package io.partita.cache.internal.osgi;
