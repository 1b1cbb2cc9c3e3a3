package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * BatchNormInference as the per-channel affine map it is at inference, {@code y = x * scale + shift}
 * with {@code scale = gamma / sqrt(variance + epsilon)} and {@code shift = beta - mean * scale}.
 * In a post-op chain it is a per-channel Multiply and Add whose operands are computed from the four
 * parameter inputs at each execution (C values: negligible beside the op they follow), so variable
 * parameters work too. A post-op operand index {@code p < 0} names such a computed operand:
 * {@link #scaleOperand} and {@link #shiftOperand} of the k-th affine of a primitive.
 */
public record BatchNormAffine(int[] inputs, long[] strides, int channels, float epsilon) {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    public BatchNormAffine {
        inputs = inputs.clone();
        strides = strides.clone();
    }

    /** The affine of a BatchNormInference op whose parameters are the partition inputs {@code ports}. */
    public static BatchNormAffine of(Op bn, List<LogicalTensor> ports) {
        int[] in = new int[4];
        long[] st = new long[4];
        for (int i = 0; i < 4; i++) {
            LogicalTensor t = Views.port(ports, bn.input(i + 1));
            in[i] = Views.indexOf(ports, t.id());
            st[i] = t.strides()[0];
        }
        return new BatchNormAffine(in, st, (int) bn.input(1).dims()[0], bn.floatAttr("epsilon"));
    }

    /** Partition inputs gamma, beta, mean, variance. */
    public int[] parameterInputs() {
        return inputs.clone();
    }

    /** The operand index of the bias a convolution gets when a BatchNorm is folded into its weights. */
    public static final int FOLDED_BIAS = Integer.MIN_VALUE;

    public static int scaleOperand(int k) {
        return -1 - 2 * k;
    }

    public static int shiftOperand(int k) {
        return -2 - 2 * k;
    }

    /** {scale, shift} from the bound parameters, computed in double as the reference does. */
    public float[][] compute(Invocation inv) {
        return compute(inv.in(inputs[0]), inv.in(inputs[1]), inv.in(inputs[2]), inv.in(inputs[3]));
    }

    float[][] compute(MemorySegment gamma, MemorySegment beta, MemorySegment mean, MemorySegment variance) {
        float[] scale = new float[channels];
        float[] shift = new float[channels];
        for (int c = 0; c < channels; c++) {
            double s = gamma.get(F, 4L * c * strides[0]) / Math.sqrt((double) variance.get(F, 4L * c * strides[3]) + epsilon);
            scale[c] = (float) s;
            shift[c] = (float) (beta.get(F, 4L * c * strides[1]) - mean.get(F, 4L * c * strides[2]) * s);
        }
        return new float[][] {scale, shift};
    }

    /**
     * Operand segments of a post-op chain: partition inputs for indices {@code >= 0}, computed
     * scales and shifts of {@code affines} for negative ones.
     */
    public static MemorySegment[] operands(Invocation inv, int[] indices, BatchNormAffine[] affines,
            MemorySegment foldedBias) {
        if (affines.length == 0 && foldedBias == null) {
            return inv.operands(indices);
        }
        float[][][] computed = new float[affines.length][][];
        MemorySegment[] s = new MemorySegment[indices.length];
        for (int i = 0; i < s.length; i++) {
            int p = indices[i];
            if (p >= 0) {
                s[i] = inv.in(p);
            } else if (p == FOLDED_BIAS) {
                s[i] = foldedBias;
            } else {
                int k = (-1 - p) / 2;
                if (computed[k] == null) {
                    computed[k] = affines[k].compute(inv);
                }
                s[i] = MemorySegment.ofArray(computed[k][(-1 - p) % 2]);
            }
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BatchNormAffine a && Arrays.equals(a.inputs, inputs) && Arrays.equals(a.strides, strides)
                && a.channels == channels && Float.floatToIntBits(a.epsilon) == Float.floatToIntBits(epsilon);
    }

    @Override
    public int hashCode() {
        return (Arrays.hashCode(inputs) * 31 + Arrays.hashCode(strides)) * 31 + channels * 7 + Float.hashCode(epsilon);
    }

    @Override
    public String toString() {
        return "BatchNorm(inputs " + Arrays.toString(inputs) + ", eps " + epsilon + ")";
    }
}
