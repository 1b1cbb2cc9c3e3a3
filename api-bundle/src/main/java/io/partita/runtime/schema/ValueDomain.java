package io.partita.runtime.schema;

/**
 * The values that make sense on an input port, so generated test inputs exercise the op instead
 * of producing NaNs (e.g. a variance must be positive, an index in range).
 */
public enum ValueDomain {
    /** Any finite value; random inputs draw from [-1, 1] (scaled for integer types). */
    ANY,
    /** Strictly positive values, e.g. Log, Sqrt, variances, divisors. */
    POSITIVE,
    /** Values away from zero, e.g. a divisor that may be negative. */
    NON_ZERO,
    /** Small integers suitable as a shape, axis or order: filled from the graph's context. */
    SHAPE,
    /** Axes a reduction works on: derived from the op's declared input and output dims. */
    AXES,
    /** Scale factors (positive, around 1). */
    SCALE,
    /** Quantization zero points: small integers within the data type. */
    ZERO_POINT,
    /** 0/1 values. */
    BOOLEAN
}
