/**
 * The vector instruction set the kernels use: one species (512, 256 or 128 bits) chosen once per
 * JVM from what its JIT really compiles to vector instructions here, or none, in which case the
 * backend claims nothing. Kernels read the species from {@code static final} constants so that
 * C2 folds the lane count and selects the register blocking of that width at compile time.
 */
package io.partita.backend.dnnl.internal.isa;
