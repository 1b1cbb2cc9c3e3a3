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
    /** Geometry, layouts, operand places and post-ops: the primitive cache key. */
    public record Desc(LogicalTensor src, LogicalTensor weights, LogicalTensor dst, boolean channelsLast,
            boolean weightsIox, int groups, long[] strides, long[] dilations, long[] padsBegin, int srcInput,
            int weightsInput, boolean weightsConstant, PostOpChain post, int[] postInputs) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Desc d && d.src.equals(src) && d.weights.equals(weights) && d.dst.equals(dst)
                    && d.channelsLast == channelsLast && d.weightsIox == weightsIox && d.groups == groups
                    && Arrays.equals(d.strides, strides) && Arrays.equals(d.dilations, dilations)
                    && Arrays.equals(d.padsBegin, padsBegin) && d.srcInput == srcInput && d.weightsInput == weightsInput
                    && d.weightsConstant == weightsConstant && d.post.equals(post) && Arrays.equals(d.postInputs, postInputs);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(src, weights, dst, channelsLast, weightsIox, groups, srcInput, weightsInput,
                    weightsConstant, post) * 31 + Arrays.hashCode(strides) + Arrays.hashCode(padsBegin);
        }
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, LogicalTensor dst, PostOpChain post, int[] postInputs) {
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
        return new Desc(src, wei, dst, nxc, xio, (int) op.longAttr("groups"), s, dl, pb, indexOf(inputs, src.id()),
                indexOf(inputs, wei.id()), wei.property() == PropertyType.CONSTANT, chain, pin);
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
        MemorySegment x = inv.in(d.srcInput);
        MemorySegment out = inv.out(0);
        StoreChain.Bound post = store.bind(inv.operands(d.postInputs));
        long length = ncx != null ? ncx.packedLength() : nxc.packedLength();
        Lease lease = d.weightsConstant ? inv.constant(d.weightsInput, d.channelsLast ? "conv-nxc" : "conv-ncx",
                4 * length, () -> new Packed(pack(inv.in(d.weightsInput), new float[Math.toIntExact(length)]))) : null;
        try {
            float[] w = lease != null ? ((Packed) lease.buffer()).data
                    : pack(inv.in(d.weightsInput), NcxConv.Scratch.get().packed(length));
            if (ncx != null) {
                ncx.run(x, w, out, post, inv.pool());
            } else {
                nxc.run(x, w, out, post, inv.pool());
            }
        } finally {
            if (lease != null) {
                lease.close();
            }
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
        if (ncx != null) {
            ncx.packWeights(w, so, si, sh, sw, dst);
        } else {
            nxc.packWeights(w, so, si, sh, sw, dst);
        }
        return dst;
    }

    /** Packed weights in the constant cache: a heap array (the kernels read it fastest), freed by the GC. */
    private static final class Packed implements ConstantBuffer {
        final float[] data;

        Packed(float[] data) {
            this.data = data;
        }

        @Override
        public long byteSize() {
            return 4L * data.length;
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
                + (d.post.isEmpty() ? "" : " " + d.post);
    }
}
