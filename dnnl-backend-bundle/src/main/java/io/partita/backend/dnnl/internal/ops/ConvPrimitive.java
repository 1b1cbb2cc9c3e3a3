package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.postops.StoreChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.Lease;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.PropertyType;

/**
 * 2-D convolution with its post-ops: an implicit GEMM that reads the input in place or from a
 * padded copy, never an im2col matrix ({@link NcxConv} for channels-first data, {@link NxcConv}
 * for channels-last). Weights are reordered into the kernels' blocks; constant weights once, into
 * the unified constant cache. Post-ops run as the output tiles are stored ({@link StoreChain}).
 */
public final class ConvPrimitive implements Primitive {
    /**
     * Geometry, layouts, operand places and post-ops: the primitive cache key. Negative post-op
     * inputs are computed BatchNorm scales and shifts ({@link BatchNormAffine}) or, with
     * {@code fold}, the folded bias.
     */
    public record Desc(LogicalTensor src, LogicalTensor weights, LogicalTensor dst, boolean channelsLast,
            boolean weightsIox, int groups, long[] strides, long[] dilations, long[] padsBegin, int srcInput,
            int weightsInput, boolean weightsConstant, PostOpChain post, int[] postInputs, BatchNormAffine[] affines,
            Fold fold) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Desc d && d.src.equals(src) && d.weights.equals(weights) && d.dst.equals(dst)
                    && d.channelsLast == channelsLast && d.weightsIox == weightsIox && d.groups == groups
                    && Arrays.equals(d.strides, strides) && Arrays.equals(d.dilations, dilations)
                    && Arrays.equals(d.padsBegin, padsBegin) && d.srcInput == srcInput && d.weightsInput == weightsInput
                    && d.weightsConstant == weightsConstant && d.post.equals(post) && Arrays.equals(d.postInputs, postInputs)
                    && Arrays.equals(d.affines, affines) && java.util.Objects.equals(d.fold, fold);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(src, weights, dst, channelsLast, weightsIox, groups, srcInput, weightsInput,
                    weightsConstant, post, fold) * 31 + Arrays.hashCode(strides) + Arrays.hashCode(padsBegin);
        }
    }

    /**
     * A BatchNorm folded into constant weights and bias: {@code W' = W * scale} per output channel,
     * {@code b' = (sum of biases) * scale + shift}. The biases are the op's own and BiasAdds before the
     * BatchNorm (partition inputs with their strides along the channels); {@code affine} indexes
     * the descriptor's affines.
     */
    public record Fold(int[] biasInputs, long[] biasStrides, int affine) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Fold f && Arrays.equals(f.biasInputs, biasInputs)
                    && Arrays.equals(f.biasStrides, biasStrides) && f.affine == affine;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(biasInputs) * 31 + Arrays.hashCode(biasStrides) + affine;
        }
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, LogicalTensor dst, PostOpChain post, int[] postInputs) {
        return describe(op, inputs, dst, post, postInputs, List.of());
    }

    /** As above, with the BatchNorms of the chain: the first is folded when it and everything before it is constant. */
    public static Desc describe(Op op, List<LogicalTensor> inputs, LogicalTensor dst, PostOpChain post, int[] postInputs,
            List<BatchNormAffine> affines) {
        LogicalTensor src = port(inputs, op.input(0));
        LogicalTensor wei = port(inputs, op.input(1));
        boolean nxc = "NXC".equals(op.stringAttr("data_format"));
        boolean xio = "XIO".equals(op.stringAttr("weights_format"));
        long[] s = op.longsAttr("strides");
        long[] dl = op.longsAttr("dilations");
        long[] pb = op.hasAttr("pads_begin") && op.longsAttr("pads_begin").length == 2 ? op.longsAttr("pads_begin")
                : new long[2];
        long[] sd = src.dims();
        long[] od = dst.dims();
        long[] wd = wei.dims();
        long kh = xio ? wd[0] : wd[2];
        long kw = xio ? wd[1] : wd[3];
        long ih = nxc ? sd[1] : sd[2];
        long iw = nxc ? sd[2] : sd[3];
        long oh = nxc ? od[1] : od[2];
        long ow = nxc ? od[2] : od[3];
        String autoPad = op.hasAttr("auto_pad") ? op.stringAttr("auto_pad") : "None";
        if (!"None".equals(autoPad)) {
            long[] k = {kh, kw};
            long[] in = {ih, iw};
            long[] out = {oh, ow};
            pb = new long[2];
            for (int i = 0; i < 2; i++) {
                long total = Math.max(0, (out[i] - 1) * s[i] + (k[i] - 1) * dl[i] + 1 - in[i]);
                pb[i] = "VALID".equals(autoPad) ? 0 : "SAME_UPPER".equals(autoPad) ? total / 2 : total - total / 2;
            }
        }
        // The op's own bias (third input) is the first post-op: an add along the channel dim.
        PostOpChain chain = post;
        int[] pin = postInputs;
        if (op.inputs().size() == 3) {
            LogicalTensor bias = port(inputs, op.input(2));
            long[] strides = new long[od.length];
            strides[nxc ? od.length - 1 : 1] = bias.strides()[0];
            java.util.List<PostOpChain.Step> steps = new java.util.ArrayList<>();
            steps.add(new PostOpChain.Bin(io.partita.graph.OpKind.Add, 0, strides, false));
            for (PostOpChain.Step st : post.steps()) {
                steps.add(st instanceof PostOpChain.Bin b
                        ? new PostOpChain.Bin(b.kind(), b.operand() + 1, b.strides(), b.chainIsRight()) : st);
            }
            chain = new PostOpChain(od, steps);
            pin = new int[postInputs.length + 1];
            pin[0] = indexOf(inputs, bias.id());
            System.arraycopy(postInputs, 0, pin, 1, postInputs.length);
        }
        BatchNormAffine[] aff = affines.toArray(BatchNormAffine[]::new);
        boolean constantWeights = wei.property() == PropertyType.CONSTANT;
        int channelDim = nxc ? od.length - 1 : 1;
        Fold fold = null;
        if (constantWeights) {
            // leading per-channel constant bias adds, then a BatchNorm's multiply and add
            List<PostOpChain.Step> steps = chain.steps();
            java.util.List<Integer> biasIn = new java.util.ArrayList<>();
            java.util.List<Long> biasSt = new java.util.ArrayList<>();
            int at = 0;
            while (at < steps.size() && steps.get(at) instanceof PostOpChain.Bin b && b.kind() == io.partita.graph.OpKind.Add
                    && !b.chainIsRight() && pin[b.operand()] >= 0 && perChannel(b.strides(), od, channelDim)
                    && inputs.get(pin[b.operand()]).property() == PropertyType.CONSTANT) {
                biasIn.add(pin[b.operand()]);
                biasSt.add(od[channelDim] == 1 ? 0 : b.strides()[channelDim]);
                at++;
            }
            if (at + 1 < steps.size() && steps.get(at) instanceof PostOpChain.Bin m && steps.get(at + 1) instanceof PostOpChain.Bin a
                    && m.kind() == io.partita.graph.OpKind.Multiply && a.kind() == io.partita.graph.OpKind.Add
                    && pin[m.operand()] < 0 && pin[m.operand()] % 2 != 0) {
                int k = (-1 - pin[m.operand()]) / 2;
                boolean constantParams = pin[a.operand()] == BatchNormAffine.shiftOperand(k);
                for (int in : aff[k].parameterInputs()) {
                    constantParams &= inputs.get(in).property() == PropertyType.CONSTANT;
                }
                if (constantParams) {
                    fold = new Fold(biasIn.stream().mapToInt(Integer::intValue).toArray(),
                            biasSt.stream().mapToLong(Long::longValue).toArray(), k);
                    long[] perChannel = new long[od.length];
                    perChannel[channelDim] = 1;
                    java.util.List<PostOpChain.Step> folded = new java.util.ArrayList<>();
                    java.util.List<Integer> foldedIn = new java.util.ArrayList<>();
                    folded.add(new PostOpChain.Bin(io.partita.graph.OpKind.Add, 0, perChannel, false));
                    foldedIn.add(BatchNormAffine.FOLDED_BIAS);
                    for (PostOpChain.Step st : steps.subList(at + 2, steps.size())) {
                        if (st instanceof PostOpChain.Bin b) {
                            folded.add(new PostOpChain.Bin(b.kind(), foldedIn.size(), b.strides(), b.chainIsRight()));
                            foldedIn.add(pin[b.operand()]);
                        } else {
                            folded.add(st);
                        }
                    }
                    chain = new PostOpChain(od, folded);
                    pin = foldedIn.stream().mapToInt(Integer::intValue).toArray();
                }
            }
        }
        return new Desc(src, wei, dst, nxc, xio, (int) op.longAttr("groups"), s, dl, pb, indexOf(inputs, src.id()),
                indexOf(inputs, wei.id()), constantWeights, chain, pin, aff, fold);
    }

    /** Strides that read one value per channel (0 along every other dim of more than one element). */
    private static boolean perChannel(long[] strides, long[] dims, int channelDim) {
        for (int d = 0; d < dims.length; d++) {
            if (d != channelDim && dims[d] != 1 && strides[d] != 0) {
                return false;
            }
        }
        return true;
    }

    private static LogicalTensor port(List<LogicalTensor> inputs, LogicalTensor t) {
        return inputs.get(indexOf(inputs, t.id()));
    }

    private static int indexOf(List<LogicalTensor> ports, long id) {
        for (int i = 0; i < ports.size(); i++) {
            if (ports.get(i).id() == id) {
                return i;
            }
        }
        throw new IllegalStateException("tensor " + id + " is not a port");
    }

    private final Desc d;
    private final ConvShape shape;
    private final NcxConv ncx;
    private final NxcConv nxc;
    private final StoreChain store;

    public ConvPrimitive(Desc d) {
        this.d = d;
        long[] sd = d.src.dims();
        long[] ss = d.src.strides();
        long[] od = d.dst.dims();
        long[] wd = d.weights.dims();
        int c = d.channelsLast ? 3 : 1;
        int h = d.channelsLast ? 1 : 2;
        int w = d.channelsLast ? 2 : 3;
        shape = new ConvShape((int) sd[0], (int) sd[c], (int) sd[h], (int) sd[w], (int) od[c], (int) od[h], (int) od[w],
                (int) (d.weightsIox ? wd[0] : wd[2]), (int) (d.weightsIox ? wd[1] : wd[3]), (int) d.strides[0],
                (int) d.strides[1], (int) d.dilations[0], (int) d.dilations[1], (int) d.padsBegin[0],
                (int) d.padsBegin[1], d.groups, ss[0], ss[c], ss[h], ss[w]);
        ncx = d.channelsLast ? null : new NcxConv(shape);
        nxc = d.channelsLast ? new NxcConv(shape) : null;
        store = new StoreChain(d.post, od, c);
    }

    @Override
    public void execute(Invocation inv) {
        if (d.fold != null) {
            executeFolded(inv);
            return;
        }
        MemorySegment x = inv.in(d.srcInput);
        MemorySegment out = inv.out(0);
        StoreChain.Bound post = store.bind(BatchNormAffine.operands(inv, d.postInputs, d.affines, null));
        long length = packedLength();
        Lease lease = d.weightsConstant ? inv.constant(d.weightsInput, d.channelsLast ? "conv-nxc" : "conv-ncx",
                4 * length, () -> new Packed(pack(inv.in(d.weightsInput), new float[Math.toIntExact(length)]), null))
                : null;
        try {
            float[] w = lease != null ? ((Packed) lease.buffer()).data
                    : pack(inv.in(d.weightsInput), NcxConv.Scratch.get().packed(length));
            run(x, w, out, post, inv);
        } finally {
            if (lease != null) {
                lease.close();
            }
        }
    }

    /**
     * The BatchNorm folded into the weights and bias: made once per set of constant inputs (weights,
     * biases, BatchNorm parameters: their memory is part of the cache key) and kept in the unified
     * constant cache, so the chain starts with one bias add instead of the BatchNorm's two steps.
     */
    private void executeFolded(Invocation inv) {
        BatchNormAffine bn = d.affines[d.fold.affine()];
        int[] params = bn.parameterInputs();
        int[] sources = new int[1 + d.fold.biasInputs().length + params.length];
        sources[0] = d.weightsInput;
        System.arraycopy(d.fold.biasInputs(), 0, sources, 1, d.fold.biasInputs().length);
        System.arraycopy(params, 0, sources, 1 + d.fold.biasInputs().length, params.length);
        long length = packedLength();
        int channels = shape.oc();
        Lease lease = inv.constant(sources, d.channelsLast ? "conv-nxc-bn" : "conv-ncx-bn", 4 * (length + channels),
                () -> fold(inv, bn, length));
        try {
            // every source is constant by construction; the cache answers even when it has no room
            Packed p = lease != null ? (Packed) lease.buffer() : fold(inv, bn, length);
            StoreChain.Bound post = store.bind(BatchNormAffine.operands(inv, d.postInputs, d.affines,
                    MemorySegment.ofArray(p.bias)));
            run(inv.in(d.srcInput), p.data, inv.out(0), post, inv);
        } finally {
            if (lease != null) {
                lease.close();
            }
        }
    }

    private Packed fold(Invocation inv, BatchNormAffine bn, long length) {
        float[][] ss = bn.compute(inv);
        float[] scale = ss[0];
        int oc = shape.oc();
        float[] bias = new float[oc];
        for (int c = 0; c < oc; c++) {
            double sum = 0;
            for (int b = 0; b < d.fold.biasInputs().length; b++) {
                sum += inv.in(d.fold.biasInputs()[b]).get(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED,
                        4L * c * d.fold.biasStrides()[b]);
            }
            bias[c] = (float) (sum * scale[c] + ss[1][c]);
        }
        // the weights scaled per output channel, dense in (o, i, h, w) order, then packed as usual
        long[] ws = d.weights.strides();
        long so = d.weightsIox ? ws[3] : ws[0];
        long si = d.weightsIox ? ws[2] : ws[1];
        long sh = d.weightsIox ? ws[0] : ws[2];
        long sw = d.weightsIox ? ws[1] : ws[3];
        int icg = shape.ic() / shape.groups();
        int kh = shape.kh();
        int kw = shape.kw();
        int perChannel = icg * kh * kw;
        float[] scaled = new float[Math.multiplyExact(oc, perChannel)];
        shape.denseWeights(inv.in(d.weightsInput), so, si, sh, sw, scaled);
        for (int o = 0; o < oc; o++) {
            float f = scale[o];
            for (int j = o * perChannel, end = j + perChannel; j < end; j++) {
                scaled[j] *= f;
            }
        }
        float[] packed = new float[Math.toIntExact(length)];
        pack(MemorySegment.ofArray(scaled), (long) icg * kh * kw, (long) kh * kw, kw, 1, packed);
        return new Packed(packed, bias);
    }

    private long packedLength() {
        return ncx != null ? ncx.packedLength() : nxc.packedLength();
    }

    private void run(MemorySegment x, float[] w, MemorySegment out, StoreChain.Bound post, Invocation inv) {
        if (ncx != null) {
            ncx.run(x, w, out, post, inv.pool());
        } else {
            nxc.run(x, w, out, post, inv.pool());
        }
    }

    /** The weights reordered for the kernels. */
    private float[] pack(MemorySegment w, float[] dst) {
        long[] ws = d.weights.strides();
        // strides in (o, i, h, w) order whatever the format
        long so = d.weightsIox ? ws[3] : ws[0];
        long si = d.weightsIox ? ws[2] : ws[1];
        long sh = d.weightsIox ? ws[0] : ws[2];
        long sw = d.weightsIox ? ws[1] : ws[3];
        return pack(w, so, si, sh, sw, dst);
    }

    private float[] pack(MemorySegment w, long so, long si, long sh, long sw, float[] dst) {
        if (ncx != null) {
            ncx.packWeights(w, so, si, sh, sw, dst);
        } else {
            nxc.packWeights(w, so, si, sh, sw, dst);
        }
        return dst;
    }

    /**
     * Packed weights in the constant cache, with the folded bias when a BatchNorm was folded in: heap
     * arrays (the kernels read them fastest), freed by the GC.
     */
    private static final class Packed implements ConstantBuffer {
        final float[] data;
        final float[] bias;

        Packed(float[] data, float[] bias) {
            this.data = data;
            this.bias = bias;
        }

        @Override
        public long byteSize() {
            return 4L * data.length + (bias == null ? 0 : 4L * bias.length);
        }

        @Override
        public MemorySegment segment() {
            return MemorySegment.ofArray(data);
        }

        @Override
        public void free() {
            // heap memory
        }
    }

    @Override
    public String toString() {
        ConvShape s = shape;
        return "conv " + (d.channelsLast ? "nxc " : "ncx ") + s.n() + "x" + s.ic() + "x" + s.ih() + "x" + s.iw() + " -> "
                + s.oc() + "x" + s.oh() + "x" + s.ow() + " k" + s.kh() + "x" + s.kw() + (s.groups() > 1 ? " g" + s.groups() : "")
                + (d.fold != null ? " batchnorm folded" : "") + (d.post.isEmpty() ? "" : " " + d.post);
    }
}
