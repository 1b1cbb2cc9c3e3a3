/**
 * benchdnn graph-driver case lines: parsing harness lines ({@code --reset --in-shapes=... --case=FILE}),
 * expanding their comma alternatives, and rewriting graphs the way benchdnn does (shapes, layouts,
 * attributes, data types, op kinds, tensor properties, fpmath mode, minibatch).
 */
@Export
@Version("0.1.0")
package io.partita.testkit.benchdnn;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
