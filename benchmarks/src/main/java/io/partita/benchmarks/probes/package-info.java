/**
 * Quick throughput probes of the DNNL-style backend's kernels (not tests, not JMH): sgemm and its
 * micro-kernel against the FMA peak, packing, convolution through the public API, single ops.
 * Run as {@code java --add-modules jdk.incubator.vector -jar benchmarks.jar probe NAME [args]}; each
 * probe's class comment gives its arguments.
 */
package io.partita.benchmarks.probes;
