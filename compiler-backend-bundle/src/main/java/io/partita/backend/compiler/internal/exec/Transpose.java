package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Square blocks of floats transposed in registers, for packing K: a block of VL keys x VL
 * head-dim values read as VL vectors becomes VL vectors of one head-dim value across the keys.
 * Each round swaps the off-diagonal sub-blocks of the next smaller size with two-vector
 * permutations (log2 VL rounds of VL permutations), which replaced a scalar scatter of every
 * element (7% of a BERT-base attention at sequence 128); gathers were no faster than the
 * scatter. The rows are locals because vectors kept in an array would live in memory.
 */
final class Transpose {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int VL = S.length();
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    /**
     * Per round, the lane sources of the two rows of a pair (i, i + b): index l &lt; VL takes lane l of
     * row i, VL + l lane l of row i + b. Round k swaps blocks of b = VL >> (k + 1) lanes.
     */
    private static final float[] SWAPS = swaps();

    private Transpose() {
    }

    /**
     * Whether {@link #block} runs at this vector length: 512 bits. With 256-bit vectors an 8 x 8
     * version measured no faster than the scatter (AVX2, sequence 128, in-process A/B), so there is none.
     */
    static boolean supported() {
        return VL == 16;
    }

    /** The block's side: the vector length. */
    static int length() {
        return VL;
    }

    private static float[] swaps() {
        int rounds = Integer.numberOfTrailingZeros(VL); // any length: the table is built before supported() is asked
        float[] t = new float[2 * rounds * VL];
        for (int k = 0; k < rounds; k++) {
            int b = VL >> (k + 1);
            for (int l = 0; l < VL; l++) {
                boolean low = (l & b) == 0;
                t[2 * k * VL + l] = low ? l : VL + l - b;
                t[(2 * k + 1) * VL + l] = low ? l + b : VL + l;
            }
        }
        return t;
    }

    /**
     * {@code dst[at + c * ldd + r] = src[from + r * stride + c]} (f32 elements) for r, c below
     * {@link #length()}, 16: four rounds of 16 permutations.
     */
    static void block(MemorySegment src, long from, long stride, float[] dst, int at, int ldd) {
        FloatVector r0 = FloatVector.fromMemorySegment(S, src, 4 * from, ORDER);
        FloatVector r1 = FloatVector.fromMemorySegment(S, src, 4 * (from + 1 * stride), ORDER);
        FloatVector r2 = FloatVector.fromMemorySegment(S, src, 4 * (from + 2 * stride), ORDER);
        FloatVector r3 = FloatVector.fromMemorySegment(S, src, 4 * (from + 3 * stride), ORDER);
        FloatVector r4 = FloatVector.fromMemorySegment(S, src, 4 * (from + 4 * stride), ORDER);
        FloatVector r5 = FloatVector.fromMemorySegment(S, src, 4 * (from + 5 * stride), ORDER);
        FloatVector r6 = FloatVector.fromMemorySegment(S, src, 4 * (from + 6 * stride), ORDER);
        FloatVector r7 = FloatVector.fromMemorySegment(S, src, 4 * (from + 7 * stride), ORDER);
        FloatVector r8 = FloatVector.fromMemorySegment(S, src, 4 * (from + 8 * stride), ORDER);
        FloatVector r9 = FloatVector.fromMemorySegment(S, src, 4 * (from + 9 * stride), ORDER);
        FloatVector r10 = FloatVector.fromMemorySegment(S, src, 4 * (from + 10 * stride), ORDER);
        FloatVector r11 = FloatVector.fromMemorySegment(S, src, 4 * (from + 11 * stride), ORDER);
        FloatVector r12 = FloatVector.fromMemorySegment(S, src, 4 * (from + 12 * stride), ORDER);
        FloatVector r13 = FloatVector.fromMemorySegment(S, src, 4 * (from + 13 * stride), ORDER);
        FloatVector r14 = FloatVector.fromMemorySegment(S, src, 4 * (from + 14 * stride), ORDER);
        FloatVector r15 = FloatVector.fromMemorySegment(S, src, 4 * (from + 15 * stride), ORDER);
        FloatVector lo = FloatVector.fromArray(S, SWAPS, 0);
        FloatVector hi = FloatVector.fromArray(S, SWAPS, 1 * VL);
        FloatVector t;
        t = lo.selectFrom(r0, r8);
        r8 = hi.selectFrom(r0, r8);
        r0 = t;
        t = lo.selectFrom(r1, r9);
        r9 = hi.selectFrom(r1, r9);
        r1 = t;
        t = lo.selectFrom(r2, r10);
        r10 = hi.selectFrom(r2, r10);
        r2 = t;
        t = lo.selectFrom(r3, r11);
        r11 = hi.selectFrom(r3, r11);
        r3 = t;
        t = lo.selectFrom(r4, r12);
        r12 = hi.selectFrom(r4, r12);
        r4 = t;
        t = lo.selectFrom(r5, r13);
        r13 = hi.selectFrom(r5, r13);
        r5 = t;
        t = lo.selectFrom(r6, r14);
        r14 = hi.selectFrom(r6, r14);
        r6 = t;
        t = lo.selectFrom(r7, r15);
        r15 = hi.selectFrom(r7, r15);
        r7 = t;
        lo = FloatVector.fromArray(S, SWAPS, 2 * VL);
        hi = FloatVector.fromArray(S, SWAPS, 3 * VL);
        t = lo.selectFrom(r0, r4);
        r4 = hi.selectFrom(r0, r4);
        r0 = t;
        t = lo.selectFrom(r1, r5);
        r5 = hi.selectFrom(r1, r5);
        r1 = t;
        t = lo.selectFrom(r2, r6);
        r6 = hi.selectFrom(r2, r6);
        r2 = t;
        t = lo.selectFrom(r3, r7);
        r7 = hi.selectFrom(r3, r7);
        r3 = t;
        t = lo.selectFrom(r8, r12);
        r12 = hi.selectFrom(r8, r12);
        r8 = t;
        t = lo.selectFrom(r9, r13);
        r13 = hi.selectFrom(r9, r13);
        r9 = t;
        t = lo.selectFrom(r10, r14);
        r14 = hi.selectFrom(r10, r14);
        r10 = t;
        t = lo.selectFrom(r11, r15);
        r15 = hi.selectFrom(r11, r15);
        r11 = t;
        lo = FloatVector.fromArray(S, SWAPS, 4 * VL);
        hi = FloatVector.fromArray(S, SWAPS, 5 * VL);
        t = lo.selectFrom(r0, r2);
        r2 = hi.selectFrom(r0, r2);
        r0 = t;
        t = lo.selectFrom(r1, r3);
        r3 = hi.selectFrom(r1, r3);
        r1 = t;
        t = lo.selectFrom(r4, r6);
        r6 = hi.selectFrom(r4, r6);
        r4 = t;
        t = lo.selectFrom(r5, r7);
        r7 = hi.selectFrom(r5, r7);
        r5 = t;
        t = lo.selectFrom(r8, r10);
        r10 = hi.selectFrom(r8, r10);
        r8 = t;
        t = lo.selectFrom(r9, r11);
        r11 = hi.selectFrom(r9, r11);
        r9 = t;
        t = lo.selectFrom(r12, r14);
        r14 = hi.selectFrom(r12, r14);
        r12 = t;
        t = lo.selectFrom(r13, r15);
        r15 = hi.selectFrom(r13, r15);
        r13 = t;
        lo = FloatVector.fromArray(S, SWAPS, 6 * VL);
        hi = FloatVector.fromArray(S, SWAPS, 7 * VL);
        t = lo.selectFrom(r0, r1);
        r1 = hi.selectFrom(r0, r1);
        r0 = t;
        t = lo.selectFrom(r2, r3);
        r3 = hi.selectFrom(r2, r3);
        r2 = t;
        t = lo.selectFrom(r4, r5);
        r5 = hi.selectFrom(r4, r5);
        r4 = t;
        t = lo.selectFrom(r6, r7);
        r7 = hi.selectFrom(r6, r7);
        r6 = t;
        t = lo.selectFrom(r8, r9);
        r9 = hi.selectFrom(r8, r9);
        r8 = t;
        t = lo.selectFrom(r10, r11);
        r11 = hi.selectFrom(r10, r11);
        r10 = t;
        t = lo.selectFrom(r12, r13);
        r13 = hi.selectFrom(r12, r13);
        r12 = t;
        t = lo.selectFrom(r14, r15);
        r15 = hi.selectFrom(r14, r15);
        r14 = t;
        r0.intoArray(dst, at + 0 * ldd);
        r1.intoArray(dst, at + 1 * ldd);
        r2.intoArray(dst, at + 2 * ldd);
        r3.intoArray(dst, at + 3 * ldd);
        r4.intoArray(dst, at + 4 * ldd);
        r5.intoArray(dst, at + 5 * ldd);
        r6.intoArray(dst, at + 6 * ldd);
        r7.intoArray(dst, at + 7 * ldd);
        r8.intoArray(dst, at + 8 * ldd);
        r9.intoArray(dst, at + 9 * ldd);
        r10.intoArray(dst, at + 10 * ldd);
        r11.intoArray(dst, at + 11 * ldd);
        r12.intoArray(dst, at + 12 * ldd);
        r13.intoArray(dst, at + 13 * ldd);
        r14.intoArray(dst, at + 14 * ldd);
        r15.intoArray(dst, at + 15 * ldd);
    }
}
