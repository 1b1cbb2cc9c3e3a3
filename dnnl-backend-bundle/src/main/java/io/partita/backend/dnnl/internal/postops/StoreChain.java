package io.partita.backend.dnnl.internal.postops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import io.partita.graph.OpKind;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * A post-op chain applied while finished values are stored from a register tile to the dense
 * output, for kernels whose runs of output values share a channel (channels-first) or walk along
 * the channels (channels-last). Activations, binary operands constant per (image, channel) —
 * biases, per-channel scales, scalars — and binary operands laid out exactly like the output
 * (residual adds) are fused into the store; a chain with any other operand is applied by the
 * general {@link PostOpChain} after a raw store, which is right but slower.
 */
public final class StoreChain {
    static final VectorSpecies<Float> S = Isa.FLOAT;
    /** Floats per vector (a constant C2 folds). */
    static final int L = Isa.LANES;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final int ACT = 0;
    private static final int PER_CHANNEL = 1;
    private static final int SAME = 2;

    private final PostOpChain chain;
    private final boolean fused;
    /** The chain is one per-channel add (a bias): the common case gets a loop of its own. */
    private final boolean biasOnly;
    /**
     * The chain is a bias, then a residual add (same layout) and/or a ReLU: what a convolution with
     * a folded BatchNorm in a ResNet block has, also with a loop of its own (the general loop over
     * steps keeps vectors boxed where C2 cannot see through it).
     */
    private final boolean biasResidualRelu;
    /** The residual step of {@link #biasResidualRelu}, or -1. */
    private final int residual;
    private final boolean relu;
    private final int images;
    private final int channels;
    private final int[] kinds;
    private final Activation[] acts;
    private final OpKind[] ops;
    private final int[] operands;
    private final boolean[] chainIsRight;
    private final long[] imageStrides;
    private final long[] channelStrides;

    /**
     * @param chain the chain over the output dims {@code outDims}
     * @param channelDim the channel axis of the output (the batch axis is 0)
     */
    public StoreChain(PostOpChain chain, long[] outDims, int channelDim) {
        this.chain = chain;
        this.images = (int) outDims[0];
        this.channels = (int) outDims[channelDim];
        int n = chain.steps().size();
        kinds = new int[n];
        acts = new Activation[n];
        ops = new OpKind[n];
        operands = new int[n];
        chainIsRight = new boolean[n];
        imageStrides = new long[n];
        channelStrides = new long[n];
        long[] dense = denseStrides(outDims);
        boolean all = true;
        for (int s = 0; s < n; s++) {
            PostOpChain.Step st = chain.steps().get(s);
            if (st instanceof PostOpChain.Act a) {
                kinds[s] = ACT;
                acts[s] = a.activation();
            } else if (st instanceof PostOpChain.Bin b) {
                ops[s] = b.kind();
                operands[s] = b.operand();
                chainIsRight[s] = b.chainIsRight();
                long[] st2 = b.strides();
                if (perChannel(st2, outDims, channelDim)) {
                    kinds[s] = PER_CHANNEL;
                    imageStrides[s] = outDims[0] == 1 ? 0 : st2[0];
                    channelStrides[s] = outDims[channelDim] == 1 ? 0 : st2[channelDim];
                } else if (sameLayout(st2, dense, outDims)) {
                    kinds[s] = SAME;
                } else {
                    all = false;
                }
            } else {
                all = false;
            }
        }
        this.fused = all;
        this.biasOnly = all && n == 1 && kinds[0] == PER_CHANNEL && ops[0] == OpKind.Add;
        int res = -1;
        boolean r = false;
        boolean tail = all && n >= 2 && n <= 3 && kinds[0] == PER_CHANNEL && ops[0] == OpKind.Add;
        for (int s = 1; tail && s < n; s++) {
            if (kinds[s] == SAME && ops[s] == OpKind.Add && s == 1) {
                res = s;
            } else if (kinds[s] == ACT && acts[s].kind() == OpKind.ReLU && s == n - 1) {
                r = true;
            } else {
                tail = false;
            }
        }
        this.biasResidualRelu = tail;
        this.residual = tail ? res : -1;
        this.relu = tail && r;
    }

    private static boolean perChannel(long[] strides, long[] dims, int channelDim) {
        for (int d = 1; d < dims.length; d++) {
            if (d != channelDim && dims[d] != 1 && strides[d] != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameLayout(long[] strides, long[] dense, long[] dims) {
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] != 1 && strides[d] != dense[d]) {
                return false;
            }
        }
        return true;
    }

    private static long[] denseStrides(long[] dims) {
        long[] s = new long[dims.length];
        long acc = 1;
        for (int d = dims.length - 1; d >= 0; d--) {
            s[d] = acc;
            acc *= dims[d];
        }
        return s;
    }

    /** Whether every step is fused into the store (else the general chain runs after it). */
    public boolean fused() {
        return fused;
    }

    /** The chain with its operands for one execution. */
    public Bound bind(MemorySegment[] operandData) {
        return new Bound(operandData);
    }

    /** A bound chain; safe to use from many threads at once. */
    public final class Bound {
        private final float[][] values;
        private final MemorySegment[] segs;
        private final PostOpChain.Bound general;

        Bound(MemorySegment[] data) {
            int n = kinds.length;
            values = new float[n][];
            segs = new MemorySegment[n];
            if (!fused) {
                general = chain.isEmpty() ? null : chain.bind(data);
                return;
            }
            general = null;
            for (int s = 0; s < n; s++) {
                if (kinds[s] == PER_CHANNEL) {
                    // one value per (image, channel), padded so vector reads past the last channel stay inside
                    float[] v = new float[images * channels + S.length()];
                    MemorySegment seg = data[operands[s]];
                    for (int i = 0; i < images; i++) {
                        for (int c = 0; c < channels; c++) {
                            v[i * channels + c] = seg.get(F, 4L * (i * imageStrides[s] + c * channelStrides[s]));
                        }
                    }
                    values[s] = v;
                } else if (kinds[s] == SAME) {
                    segs[s] = data[operands[s]];
                }
            }
        }

        /**
         * Stores {@code count} values of {@code src} from {@code sOff}, all of channel {@code ch} of
         * image {@code img}, to the output elements from flat index {@code flat} (adding what the
         * output holds when {@code accumulate}); the chain runs on them when {@code finish}.
         *
         * <p>The fast and the general paths are separate methods on purpose (here and in
         * {@link #pixelRun}): as one method, C1 ran out of registers compiling it at tier 3, and a
         * method C1 cannot profile never reached C2, so every store ran through boxed vectors (the
         * convolution anchor ran 1.4x slower).
         */
        public void channelRun(float[] src, int sOff, MemorySegment out, long flat, int count, int img, int ch,
                boolean accumulate, boolean finish) {
            boolean apply = finish && fused && kinds.length > 0;
            int vi = img * channels + ch;
            if (!accumulate && !apply) {
                copy(src, sOff, out, flat, count);
            } else if (!accumulate && biasOnly) {
                channelBiased(src, sOff, out, flat, count, values[0][vi]);
            } else if (!accumulate && biasResidualRelu) {
                channelBiasResidualRelu(src, sOff, out, flat, count, values[0][vi], residual < 0 ? null : segs[residual],
                        relu);
            } else {
                channelSteps(src, sOff, out, flat, count, vi, accumulate, apply);
            }
            if (finish && general != null) {
                general.apply(out, 4L * flat, flat, count);
            }
        }

        private static void channelBiased(float[] src, int sOff, MemorySegment out, long flat, int count,
                float bias) {
            FloatVector add = FloatVector.broadcast(S, bias);
            int q = 0;
            for (; q + L <= count; q += L) {
                FloatVector.fromArray(S, src, sOff + q).add(add).intoMemorySegment(out, 4L * (flat + q), ORDER);
            }
            if (q < count) {
                VectorMask<Float> m = S.indexInRange(q, count);
                FloatVector.fromArray(S, src, sOff + q, m).add(add).intoMemorySegment(out, 4L * (flat + q), ORDER, m);
            }
        }

        /** src + bias (+ the residual at the same place of {@code res}) (then ReLU, NaN to 0 as the reference). */
        private static void channelBiasResidualRelu(float[] src, int sOff, MemorySegment out, long flat, int count,
                float bias, MemorySegment res, boolean relu) {
            FloatVector add = FloatVector.broadcast(S, bias);
            int q = 0;
            for (; q + L <= count; q += L) {
                long o = 4L * (flat + q);
                FloatVector v = FloatVector.fromArray(S, src, sOff + q).add(add);
                if (res != null) {
                    v = v.add(FloatVector.fromMemorySegment(S, res, o, ORDER));
                }
                if (relu) {
                    v = FloatVector.zero(S).blend(v, v.compare(VectorOperators.GT, 0f));
                }
                v.intoMemorySegment(out, o, ORDER);
            }
            if (q < count) {
                long o = 4L * (flat + q);
                VectorMask<Float> m = S.indexInRange(q, count);
                FloatVector v = FloatVector.fromArray(S, src, sOff + q, m).add(add);
                if (res != null) {
                    v = v.add(FloatVector.fromMemorySegment(S, res, o, ORDER, m));
                }
                if (relu) {
                    v = FloatVector.zero(S).blend(v, v.compare(VectorOperators.GT, 0f));
                }
                v.intoMemorySegment(out, o, ORDER, m);
            }
        }

        private static void pixelBiasResidualRelu(float[] src, int sOff, MemorySegment out, long flat, int count,
                float[] bias, int vi, MemorySegment res, boolean relu) {
            int q = 0;
            for (; q + L <= count; q += L) {
                long o = 4L * (flat + q);
                FloatVector v = FloatVector.fromArray(S, src, sOff + q).add(FloatVector.fromArray(S, bias, vi + q));
                if (res != null) {
                    v = v.add(FloatVector.fromMemorySegment(S, res, o, ORDER));
                }
                if (relu) {
                    v = FloatVector.zero(S).blend(v, v.compare(VectorOperators.GT, 0f));
                }
                v.intoMemorySegment(out, o, ORDER);
            }
            if (q < count) {
                long o = 4L * (flat + q);
                VectorMask<Float> m = S.indexInRange(q, count);
                FloatVector v = FloatVector.fromArray(S, src, sOff + q, m).add(FloatVector.fromArray(S, bias, vi + q));
                if (res != null) {
                    v = v.add(FloatVector.fromMemorySegment(S, res, o, ORDER, m));
                }
                if (relu) {
                    v = FloatVector.zero(S).blend(v, v.compare(VectorOperators.GT, 0f));
                }
                v.intoMemorySegment(out, o, ORDER, m);
            }
        }

        private void channelSteps(float[] src, int sOff, MemorySegment out, long flat, int count, int vi,
                boolean accumulate, boolean apply) {
            for (int q = 0; q < count; q += L) {
                VectorMask<Float> m = q + L <= count ? null : S.indexInRange(q, count);
                long o = 4L * (flat + q);
                FloatVector v = m == null ? FloatVector.fromArray(S, src, sOff + q)
                        : FloatVector.fromArray(S, src, sOff + q, m);
                if (accumulate) {
                    v = v.add(m == null ? FloatVector.fromMemorySegment(S, out, o, ORDER)
                            : FloatVector.fromMemorySegment(S, out, o, ORDER, m));
                }
                if (apply) {
                    for (int s = 0; s < kinds.length; s++) {
                        v = switch (kinds[s]) {
                            case ACT -> acts[s].apply(v);
                            case PER_CHANNEL -> bin(s, v, FloatVector.broadcast(S, values[s][vi]));
                            default -> bin(s, v, m == null ? FloatVector.fromMemorySegment(S, segs[s], o, ORDER)
                                    : FloatVector.fromMemorySegment(S, segs[s], o, ORDER, m));
                        };
                    }
                }
                if (m == null) {
                    v.intoMemorySegment(out, o, ORDER);
                } else {
                    v.intoMemorySegment(out, o, ORDER, m);
                }
            }
        }

        /**
         * Stores {@code count} values of {@code src} from {@code sOff}, channels {@code ch} onwards of
         * one pixel of image {@code img}, to the output elements from flat index {@code flat}.
         */
        public void pixelRun(float[] src, int sOff, MemorySegment out, long flat, int count, int img, int ch,
                boolean accumulate, boolean finish) {
            boolean apply = finish && fused && kinds.length > 0;
            int vi = img * channels + ch;
            if (!accumulate && !apply) {
                copy(src, sOff, out, flat, count);
            } else if (!accumulate && biasOnly) {
                pixelBiased(src, sOff, out, flat, count, values[0], vi);
            } else if (!accumulate && biasResidualRelu) {
                pixelBiasResidualRelu(src, sOff, out, flat, count, values[0], vi, residual < 0 ? null : segs[residual],
                        relu);
            } else {
                pixelSteps(src, sOff, out, flat, count, vi, accumulate, apply);
            }
            if (finish && general != null) {
                general.apply(out, 4L * flat, flat, count);
            }
        }

        private static void copy(float[] src, int sOff, MemorySegment out, long flat, int count) {
            int q = 0;
            for (; q + L <= count; q += L) {
                FloatVector.fromArray(S, src, sOff + q).intoMemorySegment(out, 4L * (flat + q), ORDER);
            }
            if (q < count) {
                VectorMask<Float> m = S.indexInRange(q, count);
                FloatVector.fromArray(S, src, sOff + q, m).intoMemorySegment(out, 4L * (flat + q), ORDER, m);
            }
        }

        private static void pixelBiased(float[] src, int sOff, MemorySegment out, long flat, int count, float[] bias,
                int vi) {
            int q = 0;
            for (; q + L <= count; q += L) {
                FloatVector.fromArray(S, src, sOff + q).add(FloatVector.fromArray(S, bias, vi + q))
                        .intoMemorySegment(out, 4L * (flat + q), ORDER);
            }
            if (q < count) {
                VectorMask<Float> m = S.indexInRange(q, count);
                FloatVector.fromArray(S, src, sOff + q, m).add(FloatVector.fromArray(S, bias, vi + q))
                        .intoMemorySegment(out, 4L * (flat + q), ORDER, m);
            }
        }

        private void pixelSteps(float[] src, int sOff, MemorySegment out, long flat, int count, int vi,
                boolean accumulate, boolean apply) {
            for (int q = 0; q < count; q += L) {
                VectorMask<Float> m = q + L <= count ? null : S.indexInRange(q, count);
                long o = 4L * (flat + q);
                FloatVector v = m == null ? FloatVector.fromArray(S, src, sOff + q)
                        : FloatVector.fromArray(S, src, sOff + q, m);
                if (accumulate) {
                    v = v.add(m == null ? FloatVector.fromMemorySegment(S, out, o, ORDER)
                            : FloatVector.fromMemorySegment(S, out, o, ORDER, m));
                }
                if (apply) {
                    for (int s = 0; s < kinds.length; s++) {
                        v = switch (kinds[s]) {
                            case ACT -> acts[s].apply(v);
                            case PER_CHANNEL -> bin(s, v, FloatVector.fromArray(S, values[s], vi + q));
                            default -> bin(s, v, m == null ? FloatVector.fromMemorySegment(S, segs[s], o, ORDER)
                                    : FloatVector.fromMemorySegment(S, segs[s], o, ORDER, m));
                        };
                    }
                }
                if (m == null) {
                    v.intoMemorySegment(out, o, ORDER);
                } else {
                    v.intoMemorySegment(out, o, ORDER, m);
                }
            }
        }

        private FloatVector bin(int s, FloatVector chainValue, FloatVector operand) {
            return chainIsRight[s] ? PostOpChain.binary(ops[s], operand, chainValue)
                    : PostOpChain.binary(ops[s], chainValue, operand);
        }
    }
}
