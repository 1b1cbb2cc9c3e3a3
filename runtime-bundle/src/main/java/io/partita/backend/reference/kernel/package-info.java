/**
 * What every reference kernel works with (private): values as doubles in row-major order
 * ({@code RefTensor}), the execution context of one op, and NumPy broadcasting index math.
 */
package io.partita.backend.reference.kernel;
