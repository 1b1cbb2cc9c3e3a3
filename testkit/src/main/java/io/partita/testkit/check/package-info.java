/**
 * Tools to exercise and check graphs: seeded random inputs suited to each op's input ports, and
 * comparison of outputs with tolerances by data type or, for strict f32 graphs, with the error f32
 * arithmetic allows for the graph and its inputs.
 */
@Export
@Version("0.2.0")
package io.partita.testkit.check;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
