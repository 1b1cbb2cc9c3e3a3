/**
 * The backend SPI. A backend is registered as an OSGi service (ranked by {@code service.ranking})
 * or, on a plain class path, through {@code META-INF/services/io.partita.spi.Backend}. The runtime
 * offers it the finalized graph ({@link io.partita.spi.Backend#claim}), validates its claims, and
 * asks it to compile what it claimed ({@link io.partita.spi.Backend#compile}), much like ONNX
 * Runtime's GetCapability/Compile and oneDNN's backend registry.
 */
@Export
@Version("0.7.0")
package io.partita.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
