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
     * a folded BatchNorm in a ResNet block has, also with a loop of its own: one pass over the values
     * instead of one per step.
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
                        if (channelStrides[s] == 1) {
                            // one bulk copy: element reads cost 1% of ResNet-50's calling thread
                            MemorySegment.copy(seg, F, 4L * i * imageStrides[s], v, i * channels, channels);
                            continue;
                        }
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
         * Whether the chain is empty or a per-channel bias then a residual add and/or ReLU: what a
         * kernel whose rows are output channels applies in registers ({@link #channelBias},
         * {@link #residual}, {@link #relu}).
         */
        public boolean rowForm() {
            return fused && (kinds.length == 0 || biasOnly || biasResidualRelu);
        }

        /** With {@link #rowForm}: whether the chain ends in a ReLU. */
        public boolean relu() {
            return relu;
        }

        /**
         * With {@link #rowForm}: the bias per (image, channel), image i's channel c at {@code i *
         * channels + c}; null if the chain has none.
         */
        public float[] channelBias() {
            return kinds.length > 0 ? values[0] : null;
        }

        /** With {@link #rowForm}: the residual, laid out as the output; null if the chain has none. */
        public MemorySegment residual() {
            return residual < 0 ? null : segs[residual];
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
            if (apply && (biasOnly || biasResidualRelu)) {
                channelBiasResidualRelu(src, sOff, out, flat, count, values[0][vi], residual < 0 ? null : segs[residual],
                        relu, accumulate);
            } else {
                store(src, sOff, out, flat, count, accumulate);
                if (apply) {
                    stepsInPlace(out, flat, count, vi, false);
                }
            }
            if (finish && general != null) {
                general.apply(out, 4L * flat, flat, count);
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
            if (apply && (biasOnly || biasResidualRelu)) {
                pixelBiasResidualRelu(src, sOff, out, flat, count, values[0], vi, residual < 0 ? null : segs[residual],
                        relu, accumulate);
            } else {
                store(src, sOff, out, flat, count, accumulate);
                if (apply) {
                    stepsInPlace(out, flat, count, vi, true);
                }
            }
            if (finish && general != null) {
                general.apply(out, 4L * flat, flat, count);
            }
        }

        /**
         * Any other fused chain: each step is its own loop over the stored run (in L1), with the
         * step's kind decided once outside it. One loop over all the steps per vector, the earlier
         * form, passed each vector to calls C2 did not inline, which boxes it on the heap: about
         * 10 MB of garbage per ResNet-50 inference, from the convolutions that reduce in passes.
         */
        private void stepsInPlace(MemorySegment out, long flat, int count, int vi, boolean alongChannels) {
            long off = 4L * flat;
            for (int s = 0; s < kinds.length; s++) {
                switch (kinds[s]) {
                    case ACT -> InPlace.activate(acts[s], out, off, count);
                    case PER_CHANNEL -> {
                        if (alongChannels) {
                            InPlace.binaryArray(ops[s], chainIsRight[s], values[s], vi, out, off, count);
                        } else {
                            InPlace.binaryScalar(ops[s], chainIsRight[s], values[s][vi], out, off, count);
                        }
                    }
                    default -> InPlace.binarySame(ops[s], chainIsRight[s], segs[s], out, off, count);
                }
            }
        }
    }

    /** src, or src plus what the output holds, to the output. */
    private static void store(float[] src, int sOff, MemorySegment out, long flat, int count, boolean accumulate) {
        int q = 0;
        for (; q + L <= count; q += L) {
            long o = 4L * (flat + q);
            FloatVector v = FloatVector.fromArray(S, src, sOff + q);
            if (accumulate) {
                v = v.add(FloatVector.fromMemorySegment(S, out, o, ORDER));
            }
            v.intoMemorySegment(out, o, ORDER);
        }
        if (q < count) {
            long o = 4L * (flat + q);
            VectorMask<Float> m = S.indexInRange(q, count);
            FloatVector v = FloatVector.fromArray(S, src, sOff + q, m);
            if (accumulate) {
                v = v.add(FloatVector.fromMemorySegment(S, out, o, ORDER, m));
            }
            v.intoMemorySegment(out, o, ORDER, m);
        }
    }

    /**
     * src (+ what the output holds when {@code accumulate}) + bias (+ the residual at the same place
     * of {@code res}) (then ReLU, NaN to 0 as the reference).
     */
    private static void channelBiasResidualRelu(float[] src, int sOff, MemorySegment out, long flat, int count,
            float bias, MemorySegment res, boolean relu, boolean accumulate) {
        FloatVector add = FloatVector.broadcast(S, bias);
        int q = 0;
        for (; q + L <= count; q += L) {
            long o = 4L * (flat + q);
            FloatVector v = FloatVector.fromArray(S, src, sOff + q).add(add);
            if (accumulate) {
                v = v.add(FloatVector.fromMemorySegment(S, out, o, ORDER));
            }
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
            if (accumulate) {
                v = v.add(FloatVector.fromMemorySegment(S, out, o, ORDER, m));
            }
            if (res != null) {
                v = v.add(FloatVector.fromMemorySegment(S, res, o, ORDER, m));
            }
            if (relu) {
                v = FloatVector.zero(S).blend(v, v.compare(VectorOperators.GT, 0f));
            }
            v.intoMemorySegment(out, o, ORDER, m);
        }
    }

    /** As {@link #channelBiasResidualRelu}, the bias read per channel from {@code bias} at {@code vi}. */
    private static void pixelBiasResidualRelu(float[] src, int sOff, MemorySegment out, long flat, int count,
            float[] bias, int vi, MemorySegment res, boolean relu, boolean accumulate) {
        int q = 0;
        for (; q + L <= count; q += L) {
            long o = 4L * (flat + q);
            FloatVector v = FloatVector.fromArray(S, src, sOff + q).add(FloatVector.fromArray(S, bias, vi + q));
            if (accumulate) {
                v = v.add(FloatVector.fromMemorySegment(S, out, o, ORDER));
            }
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
            if (accumulate) {
                v = v.add(FloatVector.fromMemorySegment(S, out, o, ORDER, m));
            }
            if (res != null) {
                v = v.add(FloatVector.fromMemorySegment(S, res, o, ORDER, m));
            }
            if (relu) {
                v = FloatVector.zero(S).blend(v, v.compare(VectorOperators.GT, 0f));
            }
            v.intoMemorySegment(out, o, ORDER, m);
        }
    }
}
