package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * MaxPool and AvgPool over 1 to 3 spatial dims (seen as D, H, W with leading size-1 dims), NCX or
 * NXC, with strides, pads (explicit, or from {@code auto_pad}), dilations (max), either rounding
 * (the output dims say which) and {@code exclude_pad} (avg). Window {@code o} of an axis covers
 * source positions {@code o * stride - padBegin + k * dilation}; positions outside the source are
 * ignored by max and counted in the average's divisor unless {@code exclude_pad}; a max window
 * with no source position gives the lowest f32, as the reference.
 *
 * <p>Channels-last sources with unit channel stride are pooled a vector of channels at a time. A
 * channels-first max with W stride 2 (the CNN stem's 3x3/2 pool) goes output row by output row: the
 * window's source rows are combined into one padded line, and each kernel column's window values
 * are the line's even or odd lanes, taken for a vector of outputs by one two-vector permute.
 * Everything else goes plane by plane and separably: each source row is padded and reduced along W
 * once (vectors over consecutive positions), output rows combine those rows along H and D, and the
 * windows' positions (every stride-th) are picked at the end; at stride 2 that computed twice the
 * positions needed and picked them one by one (8x ONNX Runtime's time on ResNet-50's pool).
 */
public final class PoolPrimitive implements Primitive {
    private static final VectorSpecies<Float> S = Isa.FLOAT;
    /** Floats per vector (a constant C2 folds). */
    private static final int L = Isa.LANES;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final float LOWEST = -Float.MAX_VALUE;
    /** Lane i takes lane 2i of two vectors side by side (indexes past the first select from the second). */
    private static final VectorShuffle<Float> EVEN = VectorShuffle.fromOp(S, i -> 2 * i);

    /**
     * Max or average, layout, source and output dims, source strides, the window geometry in
     * 3-D (kernel, strides, 1-based dilations, resolved begin pads), exclude_pad, ports and
     * post-ops: the primitive cache key.
     */
    public record Desc(boolean max, boolean channelsLast, long[] srcDims, long[] srcStrides, long[] dstDims,
            int[] kernel, int[] strides, int[] dilations, int[] padsBegin, boolean excludePad, int srcInput,
            PostOpChain post, int[] postInputs) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Desc d && d.max == max && d.channelsLast == channelsLast
                    && Arrays.equals(d.srcDims, srcDims) && Arrays.equals(d.srcStrides, srcStrides)
                    && Arrays.equals(d.dstDims, dstDims) && Arrays.equals(d.kernel, kernel)
                    && Arrays.equals(d.strides, strides) && Arrays.equals(d.dilations, dilations)
                    && Arrays.equals(d.padsBegin, padsBegin) && d.excludePad == excludePad && d.srcInput == srcInput
                    && d.post.equals(post) && Arrays.equals(d.postInputs, postInputs);
        }

        @Override
        public int hashCode() {
            return ((Arrays.hashCode(srcDims) * 31 + Arrays.hashCode(dstDims)) * 31 + Arrays.hashCode(kernel)) * 31
                    + Arrays.hashCode(strides) + Arrays.hashCode(padsBegin) * 7 + post.hashCode() + (max ? 1 : 0);
        }
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, LogicalTensor dst, PostOpChain post,
            int[] postInputs) {
        Views.requireDense(dst, op.kind().spelling());
        LogicalTensor src = Views.port(inputs, op.input(0));
        long[] sd = src.dims();
        int ns = sd.length - 2;
        boolean nxc = "NXC".equals(op.stringAttr("data_format"));
        int first = nxc ? 1 : 2;
        long[] in = Arrays.copyOfRange(sd, first, first + ns);
        long[] k = op.longsAttr("kernel");
        long[] s = op.longsAttr("strides");
        long[] dil = new long[ns];
        Arrays.fill(dil, 1);
        if (op.kind() == OpKind.MaxPool && op.hasAttr("dilations")) {
            System.arraycopy(op.longsAttr("dilations"), 0, dil, 0, ns);
        }
        long[] pb = op.hasAttr("pads_begin") && op.longsAttr("pads_begin").length == ns ? op.longsAttr("pads_begin")
                : new long[ns];
        String autoPad = op.hasAttr("auto_pad") ? op.stringAttr("auto_pad") : "None";
        long[] pads = new long[ns];
        for (int i = 0; i < ns; i++) {
            pads[i] = switch (autoPad) {
                case "VALID" -> 0;
                case "SAME_UPPER", "SAME_LOWER" -> {
                    // The total padding that keeps ceil(in / stride) windows; the odd one at the end (upper).
                    long eff = (k[i] - 1) * dil[i] + 1;
                    long total = Math.max(0, in[i] % s[i] == 0 ? eff - s[i] : eff - in[i] % s[i]);
                    yield "SAME_LOWER".equals(autoPad) ? (total + 1) / 2 : total / 2;
                }
                default -> pb[i];
            };
        }
        boolean exclude = op.kind() == OpKind.AvgPool && op.boolAttr("exclude_pad");
        return new Desc(op.kind() == OpKind.MaxPool, nxc, sd, src.strides(), dst.dims(), to3(k, 1), to3(s, 1),
                to3(dil, 1), to3(pads, 0), exclude, Views.indexOf(inputs, src.id()), post, postInputs);
    }

    private static int[] to3(long[] v, int fill) {
        int[] r = {fill, fill, fill};
        for (int i = 0; i < v.length; i++) {
            r[3 - v.length + i] = Math.toIntExact(v[i]);
        }
        return r;
    }

    /**
     * Per output position of one axis: first source position and the in-range kernel taps [lo, hi).
     * Found by scanning the taps (once, at primitive creation) rather than by the reference's closed
     * form, so the two backends do not share a mistake the comparison would then miss.
     */
    private record Axis(int[] first, int[] lo, int[] hi) {
        static Axis of(int out, int in, int k, int s, int d, int pb) {
            int[] first = new int[out];
            int[] lo = new int[out];
            int[] hi = new int[out];
            for (int o = 0; o < out; o++) {
                first[o] = o * s - pb;
                int l = k;
                int h = k;
                for (int t = 0; t < k; t++) {
                    int pos = first[o] + t * d;
                    if (pos >= 0 && pos < in) {
                        if (l == k) {
                            l = t;
                        }
                        h = t + 1;
                    }
                }
                lo[o] = l;
                hi[o] = Math.max(h, l);
            }
            return new Axis(first, lo, hi);
        }

        int count(int o) {
            return hi[o] - lo[o];
        }
    }

    private final Desc d;
    private final int n;
    private final int c;
    private final int[] in = new int[3];
    private final int[] out = new int[3];
    private final long sn;
    private final long sc;
    private final long[] ssp = new long[3];
    private final Axis[] axes = new Axis[3];
    private final int window;
    /** Whether channels go along the vector lanes (channels-last, unit channel stride). */
    private final boolean channelVectors;
    /** Row path: positions reduced along W per source row (whole vectors covering every window start). */
    private final int rowLen;
    /** Row path: the padded source row's length (rowLen plus the kernel's dilated extent). */
    private final int lineLen;
    /**
     * Stride-2 max path (see the class comment): channels-first, W stride 2, no dilation, no
     * pooling across D, a non-negative W pad and every window holding a source value.
     */
    private final boolean pairs;
    /** Stride-2 path: the line's length (whole vectors of window starts, the kernel's extent, slack). */
    private final int pairLen;

    public PoolPrimitive(Desc d) {
        this.d = d;
        long[] sd = d.srcDims;
        long[] od = d.dstDims;
        int rank = sd.length;
        int ns = rank - 2;
        int cAxis = d.channelsLast ? rank - 1 : 1;
        int first = d.channelsLast ? 1 : 2;
        this.n = (int) sd[0];
        this.c = (int) sd[cAxis];
        this.sn = d.srcStrides[0];
        this.sc = d.srcStrides[cAxis];
        Arrays.fill(in, 1);
        Arrays.fill(out, 1);
        for (int i = 0; i < ns; i++) {
            in[3 - ns + i] = (int) sd[first + i];
            out[3 - ns + i] = (int) od[first + i];
            ssp[3 - ns + i] = d.srcStrides[first + i];
        }
        for (int i = 0; i < 3; i++) {
            axes[i] = Axis.of(out[i], in[i], d.kernel[i], d.strides[i], d.dilations[i], d.padsBegin[i]);
        }
        this.window = d.kernel[0] * d.kernel[1] * d.kernel[2];
        this.channelVectors = d.channelsLast && sc == 1;
        this.rowLen = ((out[2] - 1) * d.strides[2] + L) & -L;
        this.lineLen = rowLen + (d.kernel[2] - 1) * d.dilations[2];
        this.pairs = d.max && !d.channelsLast && d.strides[2] == 2 && d.dilations[1] == 1 && d.dilations[2] == 1
                && ssp[2] == 1 && d.padsBegin[2] >= 0 && allCount(axes[0], out[0], 1)
                && allCount(axes[1], out[1], 0) && allCount(axes[2], out[2], 0);
        this.pairLen = 2 * Math.ceilDiv(out[2], L) * L + d.kernel[2] + 2 * L;
    }

    /** Whether every output position of the axis has exactly {@code exact} taps in range (0: at least one). */
    private static boolean allCount(Axis a, int outs, int exact) {
        for (int o = 0; o < outs; o++) {
            int count = a.count(o);
            if (exact == 0 ? count == 0 : count != exact) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void execute(Invocation inv) {
        MemorySegment src = inv.in(d.srcInput);
        MemorySegment dst = inv.out(0);
        PostOpChain.Bound post = d.post.isEmpty() ? null : d.post.bind(inv.operands(d.postInputs));
        long outCount = (long) n * c * out[0] * out[1] * out[2];
        if (outCount == 0) {
            return;
        }
        long work = outCount * window;
        if (channelVectors) {
            int rows = n * out[0] * out[1];
            Views.parallel(inv.pool(), rows, work, (r0, r1) -> {
                for (int r = r0; r < r1; r++) {
                    channelsLastRow(src, dst, r);
                    if (post != null) {
                        long f = (long) r * out[2] * c;
                        post.apply(dst, 4 * f, f, out[2] * c);
                    }
                }
            });
            return;
        }
        int planes = n * c;
        if (pairs) {
            Views.parallel(inv.pool(), planes * out[0], work, (t0, t1) -> {
                RowScratch sc = RowScratch.LOCAL.get();
                float[] line = sc.line = grown(sc.line, pairLen);
                for (int t = t0; t < t1; t++) {
                    pairsPlane(src, dst, t / out[0], t % out[0], line, post);
                }
            });
            return;
        }
        boolean ncx = !d.channelsLast;
        Views.parallel(inv.pool(), planes * out[0], work, (t0, t1) -> {
            RowScratch sc = RowScratch.LOCAL.get();
            float[] acc = sc.acc = grown(sc.acc, out[2]);
            float[] vertical = sc.vertical = grown(sc.vertical, rowLen);
            float[] line = sc.line = grown(sc.line, lineLen);
            float[] staged = sc.staged = grown(sc.staged, d.kernel[0] * in[1] * rowLen);
            for (int t = t0; t < t1; t++) {
                int plane = t / out[0];
                int od = t % out[0];
                int b = plane / c;
                int ch = plane % c;
                stage(src, b, ch, od, staged, line);
                for (int oh = 0; oh < out[1]; oh++) {
                    planeRow(od, oh, acc, vertical, staged);
                    storeRow(dst, b, ch, od, oh, acc);
                    if (post != null && ncx) {
                        long f = (((long) plane * out[0] + od) * out[1] + oh) * out[2];
                        post.apply(dst, 4 * f, f, out[2]);
                    }
                }
            }
        });
        if (post != null && !ncx) {
            // channels-last output written a channel at a time: the chain runs over it afterwards
            int blocks = (int) ((outCount + 16383) / 16384);
            Views.parallel(inv.pool(), blocks, outCount, (b0, b1) -> {
                for (int bl = b0; bl < b1; bl++) {
                    long f = (long) bl * 16384;
                    post.apply(dst, 4 * f, f, (int) Math.min(16384, outCount - f));
                }
            });
        }
    }

    /**
     * Every output row of depth {@code od} of a plane on the stride-2 max path. Per row: the
     * window's source rows, combined, fill {@code line} from position padBegin (the rest is -inf, so
     * padding never wins); output ow's window is then positions 2ow + kw, and each position's maximum
     * over the kernel columns, taken over two vectors from 2 ow0, holds a vector of outputs' values in
     * its even lanes.
     */
    private void pairsPlane(MemorySegment src, MemorySegment dst, int plane, int od, float[] line,
            PostOpChain.Bound post) {
        Axis ad = axes[0];
        Axis ah = axes[1];
        int pw = d.padsBegin[2];
        int cols = Math.min(in[2], pairLen - pw);
        int kw = d.kernel[2];
        int ow = out[2];
        long base = plane / c * sn + plane % c * sc + (ad.first[od] + (long) ad.lo[od] * d.dilations[0]) * ssp[0];
        Arrays.fill(line, 0, pw, Float.NEGATIVE_INFINITY);
        Arrays.fill(line, pw + cols, pairLen, Float.NEGATIVE_INFINITY);
        for (int oh = 0; oh < out[1]; oh++) {
            long first = base + (long) (ah.first[oh] + ah.lo[oh]) * ssp[1];
            int rows = ah.count(oh);
            int j = 0;
            if (rows == 3) { // the common 3-row window, written out: the inner loop over rows cost a third
                long row = 4L * ssp[1];
                for (; j + L <= cols; j += L) {
                    long at = 4 * (first + j);
                    FloatVector v = FloatVector.fromMemorySegment(S, src, at, ORDER)
                            .max(FloatVector.fromMemorySegment(S, src, at + row, ORDER))
                            .max(FloatVector.fromMemorySegment(S, src, at + 2 * row, ORDER));
                    v.intoArray(line, pw + j);
                }
            }
            for (; j < cols; j += L) {
                boolean whole = j + L <= cols;
                VectorMask<Float> m = whole ? null : S.indexInRange(j, cols);
                long at = 4 * (first + j);
                FloatVector v = whole ? FloatVector.fromMemorySegment(S, src, at, ORDER)
                        : FloatVector.fromMemorySegment(S, src, at, ORDER, m);
                for (int r = 1; r < rows; r++) {
                    long o = at + 4 * r * ssp[1];
                    v = v.max(whole ? FloatVector.fromMemorySegment(S, src, o, ORDER)
                            : FloatVector.fromMemorySegment(S, src, o, ORDER, m));
                }
                if (whole) {
                    v.intoArray(line, pw + j);
                } else {
                    v.intoArray(line, pw + j, m);
                }
            }
            long f = (((long) plane * out[0] + od) * out[1] + oh) * ow;
            for (int q = 0; q < ow; q += L) {
                // the window's maximum at every position of two vectors, then their even lanes: one
                // two-vector shuffle per output vector instead of one per kernel column
                int p = 2 * q;
                FloatVector lo = FloatVector.fromArray(S, line, p);
                FloatVector hi = FloatVector.fromArray(S, line, p + L);
                if (kw == 3) { // written out, as the rows above
                    lo = lo.max(FloatVector.fromArray(S, line, p + 1)).max(FloatVector.fromArray(S, line, p + 2));
                    hi = hi.max(FloatVector.fromArray(S, line, p + L + 1))
                            .max(FloatVector.fromArray(S, line, p + L + 2));
                }
                for (int k = kw == 3 ? kw : 1; k < kw; k++) {
                    lo = lo.max(FloatVector.fromArray(S, line, p + k));
                    hi = hi.max(FloatVector.fromArray(S, line, p + k + L));
                }
                FloatVector acc = lo.rearrange(EVEN, hi);
                if (q + L <= ow) {
                    acc.intoMemorySegment(dst, 4 * (f + q), ORDER);
                } else {
                    acc.intoMemorySegment(dst, 4 * (f + q), ORDER, S.indexInRange(q, ow));
                }
            }
            if (post != null) {
                post.apply(dst, 4 * f, f, ow);
            }
        }
    }

    /** One output row (n, od, oh) of a channels-last pooling, a vector of channels at a time. */
    private void channelsLastRow(MemorySegment src, MemorySegment dst, int r) {
        int oh = r % out[1];
        int od = r / out[1] % out[0];
        int b = r / (out[1] * out[0]);
        Axis ad = axes[0];
        Axis ah = axes[1];
        Axis aw = axes[2];
        int dd = d.dilations[0];
        int dh = d.dilations[1];
        int dw = d.dilations[2];
        int cdh = ad.count(od) * ah.count(oh);
        long base = b * sn;
        long dof = (long) r * out[2] * c;
        for (int ow = 0; ow < out[2]; ow++) {
            int count = cdh * aw.count(ow);
            float fill = d.max ? (count == 0 ? LOWEST : Float.NEGATIVE_INFINITY) : 0f;
            int div = d.excludePad ? count : window;
            FloatVector scale = FloatVector.broadcast(S, div == 0 ? 0f : 1f / div);
            for (int ch = 0; ch < c; ch += L) {
                VectorMask<Float> m = S.indexInRange(ch, c);
                FloatVector acc = FloatVector.broadcast(S, fill);
                for (int kd = ad.lo[od]; kd < ad.hi[od]; kd++) {
                    long zd = base + (ad.first[od] + (long) kd * dd) * ssp[0] + ch;
                    for (int kh = ah.lo[oh]; kh < ah.hi[oh]; kh++) {
                        long zh = zd + (ah.first[oh] + (long) kh * dh) * ssp[1];
                        for (int kw = aw.lo[ow]; kw < aw.hi[ow]; kw++) {
                            long o = 4 * (zh + (aw.first[ow] + (long) kw * dw) * ssp[2]);
                            FloatVector x = FloatVector.fromMemorySegment(S, src, o, ORDER, m);
                            acc = d.max ? acc.max(x) : acc.add(x);
                        }
                    }
                }
                if (!d.max) {
                    acc = acc.mul(scale);
                }
                acc.intoMemorySegment(dst, 4 * (dof + (long) ow * c + ch), ORDER, m);
            }
        }
    }

    /**
     * Reduces every source row that output depth {@code od} of plane (b, ch) reads along W (see
     * {@link #horizontal}) into {@code staged}: row (kd, ih) at {@code (kdIndex * IH + ih) * rowLen}.
     */
    private void stage(MemorySegment src, int b, int ch, int od, float[] staged, float[] line) {
        Axis ad = axes[0];
        float pad = d.max ? Float.NEGATIVE_INFINITY : 0f;
        long base = b * sn + ch * sc;
        for (int kd = ad.lo[od]; kd < ad.hi[od]; kd++) {
            long zd = base + (ad.first[od] + (long) kd * d.dilations[0]) * ssp[0];
            int kdi = kd - ad.lo[od];
            for (int ih = 0; ih < in[1]; ih++) {
                horizontal(src, zd + ih * ssp[1], staged, (kdi * in[1] + ih) * rowLen, line, pad);
            }
        }
    }

    /**
     * The source row at element {@code row} padded into {@code line} (position x holds column
     * {@code x - padBegin}, padding outside the row), then reduced over the kernel's W taps at
     * every position: {@code staged[to + x] = op over kw of line[x + kw * dilation]}. Window ow
     * of the row is position {@code ow * stride}; all positions are computed because whole
     * vectors over consecutive positions are cheaper than picking every stride-th one.
     */
    private void horizontal(MemorySegment src, long row, float[] staged, int to, float[] line, float pad) {
        int pw = d.padsBegin[2];
        int iw = in[2];
        long sw = ssp[2];
        int lo = Math.min(Math.max(pw, 0), lineLen);
        int hi = Math.min(Math.max(pw + iw, lo), lineLen);
        Arrays.fill(line, 0, lo, pad);
        if (hi > lo) {
            if (sw == 1) {
                MemorySegment.copy(src, F, 4 * (row + lo - pw), line, lo, hi - lo);
            } else {
                for (int x = lo; x < hi; x++) {
                    line[x] = src.get(F, 4 * (row + (x - pw) * sw));
                }
            }
        }
        Arrays.fill(line, hi, lineLen, pad);
        int dw = d.dilations[2];
        for (int x = 0; x < rowLen; x += L) {
            FloatVector a = FloatVector.fromArray(S, line, x);
            for (int kw = 1; kw < d.kernel[2]; kw++) {
                FloatVector v = FloatVector.fromArray(S, line, x + kw * dw);
                a = d.max ? a.max(v) : a.add(v);
            }
            a.intoArray(staged, to + x);
        }
    }

    /**
     * Output row (od, oh) into {@code acc}: the W-reduced rows of its in-range (kd, kh) taps
     * combined with whole vectors in {@code vertical}, then every stride-th position taken and
     * divided (avg) or checked for empty windows (max).
     */
    private void planeRow(int od, int oh, float[] acc, float[] vertical, float[] staged) {
        Axis ad = axes[0];
        Axis ah = axes[1];
        Axis aw = axes[2];
        int ow = out[2];
        int s = d.strides[2];
        float pad = d.max ? Float.NEGATIVE_INFINITY : 0f;
        Arrays.fill(vertical, pad);
        int rowsUsed = 0;
        for (int kd = ad.lo[od]; kd < ad.hi[od]; kd++) {
            int kdi = kd - ad.lo[od];
            for (int kh = ah.lo[oh]; kh < ah.hi[oh]; kh++) {
                int ih = ah.first[oh] + kh * d.dilations[1];
                int row = (kdi * in[1] + ih) * rowLen;
                rowsUsed++;
                if (d.max) {
                    for (int x = 0; x < rowLen; x += L) {
                        FloatVector.fromArray(S, vertical, x).max(FloatVector.fromArray(S, staged, row + x))
                                .intoArray(vertical, x);
                    }
                } else {
                    for (int x = 0; x < rowLen; x += L) {
                        FloatVector.fromArray(S, vertical, x).add(FloatVector.fromArray(S, staged, row + x))
                                .intoArray(vertical, x);
                    }
                }
            }
        }
        for (int q = 0, x = 0; q < ow; q++, x += s) {
            int count = rowsUsed * aw.count(q);
            float v = vertical[x];
            if (d.max) {
                acc[q] = count == 0 ? LOWEST : v;
            } else {
                int div = d.excludePad ? count : window;
                acc[q] = div == 0 ? 0f : v / div;
            }
        }
    }

    private void storeRow(MemorySegment dst, int b, int ch, int od, int oh, float[] acc) {
        int ow = out[2];
        if (!d.channelsLast) {
            long f = ((((long) b * c + ch) * out[0] + od) * out[1] + oh) * ow;
            MemorySegment.copy(acc, 0, dst, F, 4 * f, ow);
            return;
        }
        long f = ((((long) b * out[0] + od) * out[1] + oh) * ow) * c + ch;
        for (int q = 0; q < ow; q++) {
            dst.set(F, 4 * (f + (long) q * c), acc[q]);
        }
    }

    @Override
    public String toString() {
        return (d.max ? "maxpool " : "avgpool ") + Arrays.toString(d.srcDims) + " -> " + Arrays.toString(d.dstDims)
                + (d.channelsLast ? " NXC" : " NCX") + " k" + Arrays.toString(d.kernel) + " s"
                + Arrays.toString(d.strides) + (d.post.isEmpty() ? "" : " " + d.post);
    }

    /**
     * The row path's buffers, per thread and kept between executions (every value is written before
     * it is read, so a longer buffer from another shape serves): a new set per range was 0.8 MB of
     * garbage per ResNet-50 inference.
     */
    private static final class RowScratch {
        static final ThreadLocal<RowScratch> LOCAL = ThreadLocal.withInitial(RowScratch::new);
        float[] acc = new float[0];
        float[] vertical = new float[0];
        float[] line = new float[0];
        float[] staged = new float[0];
    }

    private static float[] grown(float[] a, int length) {
        return a.length >= length ? a : new float[length];
    }
}
