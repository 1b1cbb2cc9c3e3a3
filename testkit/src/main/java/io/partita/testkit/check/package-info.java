/**
 * Tools to exercise and check graphs: seeded random inputs suited to each op's input ports, and
 * comparison of outputs with tolerances by data type.
 */
@Export
@Version("0.2.0")
package io.partita.testkit.check;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
