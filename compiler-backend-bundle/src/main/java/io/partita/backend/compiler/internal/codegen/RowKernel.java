package io.partita.backend.compiler.internal.codegen;

/**
 * A fused elementwise expression over one row, generated per partition (or interpreted where
 * generation failed). Shared by all threads: implementations keep no state.
 */
public interface RowKernel {

    /**
     * Evaluates {@code n} elements, in whole vectors: every source must hold {@code n} rounded up
     * to the vector length from its offset. The result goes over {@code src[0]} from {@code off[0]}.
     *
     * @param src     staged rows, {@code src[0]} also the output
     * @param off     where each row starts in its array
     * @param scalars values uniform over the row
     * @param row     the row index (for index leaves)
     * @param col     the column index of element 0 (for index leaves)
     */
    void apply(float[][] src, int[] off, float[] scalars, int n, int row, int col);
}
