/** The ACL-style backend as an OSGi service, configured through Config Admin (PID io.partita.backend.acl). */
package io.partita.backend.acl.internal.osgi;
