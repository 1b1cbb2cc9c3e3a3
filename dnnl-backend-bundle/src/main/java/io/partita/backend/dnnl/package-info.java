/** Settings of the DNNL-style backend that users and tools may change (thread count). */
@Export
@Version("0.1.0")
package io.partita.backend.dnnl;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
