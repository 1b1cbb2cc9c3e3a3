package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.dnnl.internal.gemm.PackedB;
import io.partita.backend.dnnl.internal.gemm.PanelSource;
import io.partita.backend.dnnl.internal.gemm.RowSource;
import io.partita.backend.dnnl.internal.gemm.Sgemm;
import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.PackedConstant;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.Lease;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.PropertyType;

/**
 * 2-D convolution with its post-ops, as GEMMs per image and group. Channels-first (NCX) output:
 * C[OC, pixels] = W[OC, IC*KH*KW] x im2col, the im2col panels packed on the fly by the thread that
 * uses them. Channels-last (NXC) output: C[pixels, OC] = im2col rows x W^T, the weights packed
 * once as micro-kernel panels. Constant weights are reordered once into the unified cache.
 */
public final class ConvPrimitive implements Primitive {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

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
    private final int n;
    private final int ic;
    private final int ih;
    private final int iw;
    private final int oc;
    private final int oh;
    private final int ow;
    private final int kh;
    private final int kw;
    private final int g;
    private final int icg;
    private final int ocg;
    private final int k;
    private final long[] xs; // src strides as (n, c, h, w)

    public ConvPrimitive(Desc d) {
        this.d = d;
        long[] sd = d.src.dims();
        long[] ss = d.src.strides();
        long[] od = d.dst.dims();
        long[] wd = d.weights.dims();
        n = (int) sd[0];
        if (d.channelsLast) {
            ih = (int) sd[1];
            iw = (int) sd[2];
            ic = (int) sd[3];
            xs = new long[] {ss[0], ss[3], ss[1], ss[2]};
            oh = (int) od[1];
            ow = (int) od[2];
            oc = (int) od[3];
        } else {
            ic = (int) sd[1];
            ih = (int) sd[2];
            iw = (int) sd[3];
            xs = new long[] {ss[0], ss[1], ss[2], ss[3]};
            oc = (int) od[1];
            oh = (int) od[2];
            ow = (int) od[3];
        }
        kh = (int) (d.weightsIox ? wd[0] : wd[2]);
        kw = (int) (d.weightsIox ? wd[1] : wd[3]);
        g = d.groups;
        icg = ic / g;
        ocg = oc / g;
        k = icg * kh * kw;
    }

    @Override
    public void execute(Invocation inv) {
        MemorySegment x = inv.in(d.srcInput);
        MemorySegment out = inv.out(0);
        PostOpChain.Bound post = d.post.isEmpty() ? null : d.post.bind(inv.operands(d.postInputs));
        Lease lease = d.weightsConstant ? inv.constant(d.weightsInput, d.channelsLast ? "conv-kxoc-panels" : "conv-oc-k",
                weightBytes(), () -> prepareWeights(inv.in(d.weightsInput))) : null;
        try {
            ConstantBuffer w = lease != null ? lease.buffer() : prepareWeights(inv.in(d.weightsInput));
            long p = (long) oh * ow;
            for (int img = 0; img < n; img++) {
                for (int grp = 0; grp < g; grp++) {
                    if (d.channelsLast) {
                        PackedB wb = ((PackedConstant) w).matrix(grp);
                        long cOff = 4L * ((long) img * p * oc + (long) grp * ocg);
                        Sgemm.multiply(new NxcRows(x, img, grp), wb, out, cOff, oc,
                                post == null ? null : post.asEpilogue((long) img * p * oc + (long) grp * ocg, oc),
                                inv.pool());
                    } else {
                        long cOff = 4L * ((long) img * oc + (long) grp * ocg) * p;
                        MemorySegment wa = w.segment();
                        Sgemm.multiply(wa, 4L * (long) grp * ocg * k, k, 1, ocg, new NcxPanels(x, img, grp), out, cOff,
                                p, post == null ? null : post.asEpilogue(((long) img * oc + (long) grp * ocg) * p, p),
                                inv.pool());
                    }
                }
            }
        } finally {
            if (lease != null) {
                lease.close();
            }
        }
    }

    private long weightBytes() {
        return d.channelsLast ? PackedConstant.bytesFor(g, k, ocg) : 4L * oc * k;
    }

    /** The weights as the GEMM wants them: dense [OC][K] (NCX) or packed panels of [K][OCg] per group (NXC). */
    private ConstantBuffer prepareWeights(MemorySegment w) {
        long[] ws = d.weights.strides();
        // strides in (o, i, h, w) order whatever the format
        long so = d.weightsIox ? ws[3] : ws[0];
        long si = d.weightsIox ? ws[2] : ws[1];
        long sh = d.weightsIox ? ws[0] : ws[2];
        long sw = d.weightsIox ? ws[1] : ws[3];
        if (!d.channelsLast) {
            float[] dense = new float[oc * k];
            for (int o = 0; o < oc; o++) {
                for (int i = 0; i < icg; i++) {
                    for (int y = 0; y < kh; y++) {
                        for (int xx = 0; xx < kw; xx++) {
                            dense[(o * icg + i) * kh * kw + y * kw + xx] = w.get(F, 4L * (o * so + i * si + y * sh + xx * sw));
                        }
                    }
                }
            }
            return new HeapArray(dense);
        }
        PackedB[] perGroup = new PackedB[g];
        float[] kxo = new float[k * ocg];
        MemorySegment view = MemorySegment.ofArray(kxo);
        for (int grp = 0; grp < g; grp++) {
            for (int o = 0; o < ocg; o++) {
                for (int y = 0; y < kh; y++) {
                    for (int xx = 0; xx < kw; xx++) {
                        for (int i = 0; i < icg; i++) {
                            int kk = (y * kw + xx) * icg + i;
                            kxo[kk * ocg + o] = w.get(F, 4L * ((grp * ocg + o) * so + i * si + y * sh + xx * sw));
                        }
                    }
                }
            }
            perGroup[grp] = PackedB.pack(view, 0, ocg, 1, k, ocg);
        }
        return new PackedConstant(perGroup);
    }

    /** A dense heap array as a constant buffer. */
    private static final class HeapArray implements ConstantBuffer {
        private final MemorySegment seg;

        HeapArray(float[] data) {
            this.seg = MemorySegment.ofArray(data);
        }

        @Override
        public long byteSize() {
            return seg.byteSize();
        }

        @Override
        public MemorySegment segment() {
            return seg;
        }

        @Override
        public void free() {
            // heap memory
        }
    }

    /** NCX: im2col panels of 64 output pixels, rows kk = (ic, kh, kw), packed by the thread that uses them. */
    private final class NcxPanels implements PanelSource {
        private final MemorySegment x;
        private final long base;

        NcxPanels(MemorySegment x, int img, int grp) {
            this.x = x;
            this.base = img * xs[0] + (long) grp * icg * xs[1];
        }

        @Override
        public int k() {
            return k;
        }

        @Override
        public int n() {
            return oh * ow;
        }

        @Override
        public int offset(int panel, int k0) {
            return 0;
        }

        @Override
        public float[] panel(int panel, int k0, int kc, float[] dst) {
            int nr = Sgemm.NR;
            int p0 = panel * nr;
            int cols = Math.min(nr, oh * ow - p0);
            long sh = d.strides[0];
            long sw = d.strides[1];
            long dh = d.dilations[0];
            long dw = d.dilations[1];
            boolean contiguousW = sw == 1 && xs[3] == 1;
            for (int kk = k0; kk < k0 + kc; kk++) {
                int c = kk / (kh * kw);
                int y = (kk / kw) % kh;
                int xx = kk % kw;
                int row = (kk - k0) * nr;
                long cBase = base + c * xs[1];
                int j = 0;
                while (j < nr) {
                    if (j >= cols) {
                        java.util.Arrays.fill(dst, row + j, row + nr, 0f);
                        break;
                    }
                    int pix = p0 + j;
                    int outY = pix / ow;
                    int outX = pix % ow;
                    int run = Math.min(ow - outX, cols - j); // pixels left in this output row
                    long inY = outY * sh + y * dh - d.padsBegin[0];
                    if (inY < 0 || inY >= ih) {
                        java.util.Arrays.fill(dst, row + j, row + j + run, 0f);
                    } else if (contiguousW) {
                        long inX0 = outX + xx * dw - d.padsBegin[1];
                        int lo = (int) Math.max(0, -inX0); // leading pixels in the left padding
                        int hi = (int) Math.min(run, iw - inX0); // pixels before the right padding
                        if (hi <= lo) {
                            java.util.Arrays.fill(dst, row + j, row + j + run, 0f);
                        } else {
                            if (lo > 0) {
                                java.util.Arrays.fill(dst, row + j, row + j + lo, 0f);
                            }
                            MemorySegment.copy(x, F, 4L * (cBase + inY * xs[2] + inX0 + lo), dst, row + j + lo, hi - lo);
                            if (hi < run) {
                                java.util.Arrays.fill(dst, row + j + hi, row + j + run, 0f);
                            }
                        }
                    } else {
                        for (int t = 0; t < run; t++) {
                            long inX = (outX + t) * sw + xx * dw - d.padsBegin[1];
                            dst[row + j + t] = inX < 0 || inX >= iw ? 0f : x.get(F, 4L * (cBase + inY * xs[2] + inX * xs[3]));
                        }
                    }
                    j += run;
                }
            }
            return dst;
        }
    }

    /** NXC: im2col rows (one per output pixel), columns kk = (kh, kw, ic). */
    private final class NxcRows implements RowSource {
        private final MemorySegment x;
        private final long base;

        NxcRows(MemorySegment x, int img, int grp) {
            this.x = x;
            this.base = img * xs[0] + (long) grp * icg * xs[1];
        }

        @Override
        public int m() {
            return oh * ow;
        }

        @Override
        public int k() {
            return k;
        }

        @Override
        public void pack(int i0, int rows, int k0, int kc, float[] ap, int apOff) {
            int mr = Sgemm.MR;
            int groups = (rows + mr - 1) / mr;
            for (int gg = 0; gg < groups; gg++) {
                int b0 = apOff + gg * kc * mr;
                for (int r = 0; r < mr; r++) {
                    int i = gg * mr + r;
                    if (i >= rows) {
                        for (int kk = 0; kk < kc; kk++) {
                            ap[b0 + kk * mr + r] = 0f;
                        }
                        continue;
                    }
                    int pix = i0 + i;
                    int outY = pix / ow;
                    int outX = pix % ow;
                    for (int kk = k0; kk < k0 + kc; kk++) {
                        int c = kk % icg;
                        int xx = (kk / icg) % kw;
                        int y = kk / (icg * kw);
                        long inY = outY * d.strides[0] + y * d.dilations[0] - d.padsBegin[0];
                        long inX = outX * d.strides[1] + xx * d.dilations[1] - d.padsBegin[1];
                        ap[b0 + (kk - k0) * mr + r] = inY < 0 || inY >= ih || inX < 0 || inX >= iw ? 0f
                                : x.get(F, 4L * (base + c * xs[1] + inY * xs[2] + inX * xs[3]));
                    }
                }
            }
        }
    }

    @Override
    public String toString() {
        return "conv " + (d.channelsLast ? "nxc " : "ncx ") + n + "x" + ic + "x" + ih + "x" + iw + " -> " + oc + "x" + oh
                + "x" + ow + " k" + kh + "x" + kw + (g > 1 ? " g" + g : "") + (d.post.isEmpty() ? "" : " " + d.post);
    }
}
