package io.partita.backend.acl.internal;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.partita.backend.acl.internal.ops.Elementwise;
import io.partita.backend.acl.internal.ops.FullyConnected;
import io.partita.backend.acl.internal.ops.GemmConvolution;
import io.partita.backend.acl.internal.ops.Pooling;
import io.partita.backend.acl.internal.ops.SoftMax;
import io.partita.backend.acl.internal.ops.WinogradConvolution;
import io.partita.graph.DataType;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.Claim;
import io.partita.spi.GraphView;

/**
 * What the backend claims — f32, static shapes, dense layouts: MatMul with 2-D weights
 * (fully connected) and 2-D convolution with explicit padding, each with an optional bias input,
 * (depthwise ones, groups == channels, as pattern {@code dw_conv}), and same-shaped binary
 * arithmetic; under the FUSION policy each takes along a ReLU (or, after arithmetic, a Clamp) that
 * is its output's only consumer; 2-D MaxPool/AvgPool with explicit padding and SoftMax without
 * stats, alone — and the operator descriptor of a claimed partition.
 */
final class Patterns {
    /**
     * Largest tensor, im2col buffer or product taken, in floats (512 MB): bigger ones are left to
     * other backends rather than pooled (and the kernels index rows with ints).
     */
    private static final long MAX_FLOATS = 1L << 27;

    private Patterns() {
    }

    static List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        return claim(graph, policy, true);
    }

    /** @param winograd whether 3x3 stride-1 convolutions where Winograd wins are claimed as {@code winograd_conv} */
    static List<Claim> claim(GraphView graph, PartitionPolicy policy, boolean winograd) {
        List<Claim> claims = new ArrayList<>();
        for (Op op : graph.ops()) {
            if (graph.isClaimed(op.id())) {
                continue;
            }
            String name = switch (op.kind()) {
                case MatMul -> fullyConnected(op) != null ? "fc" : null;
                case Convolution -> {
                    GemmConvolution.Desc d = convolution(op);
                    yield d == null ? null : depthwise(d) ? "dw_conv" : winograd && winogradWins(d) ? "winograd_conv"
                            : "gemm_conv";
                }
                case Add, Subtract, Multiply, Maximum, Minimum -> elementwise(op) != null ? "eltwise" : null;
                case MaxPool, AvgPool -> pooling(op) != null ? "pool" : null;
                case SoftMax -> softmax(op) != null ? "softmax" : null;
                default -> null;
            };
            if (name == null) {
                continue;
            }
            Set<Long> ids = new LinkedHashSet<>(List.of(op.id()));
            boolean fuses = !name.equals("pool") && !name.equals("softmax");
            Op act = policy == PartitionPolicy.FUSION && fuses ? fusibleActivation(graph, op, name.equals("eltwise")) : null;
            if (act != null) {
                ids.add(act.id());
                name += "_" + act.kind().name().toLowerCase(java.util.Locale.ROOT);
            }
            claims.add(new Claim(ids, name));
        }
        return claims;
    }

    /** ReLU after any claimed op; Clamp (ACL's bounded ReLU) after elementwise arithmetic too. */
    private static Op fusibleActivation(GraphView graph, Op op, boolean clampToo) {
        long out = op.output(0).id();
        List<Op> consumers = graph.consumers(out);
        if (graph.isGraphOutput(out) || consumers.size() != 1) {
            return null;
        }
        Op c = consumers.get(0);
        boolean kind = c.kind() == OpKind.ReLU || clampToo && c.kind() == OpKind.Clamp;
        return kind && !graph.isClaimed(c.id()) && usable(c.output(0)) ? c : null;
    }

    static boolean usable(LogicalTensor t) {
        return t.dataType() == DataType.F32 && t.ndims() >= 1 && t.isConcrete() && !t.hasDynamicDim()
                && t.layoutType() != LayoutType.OPAQUE && (t.layoutType() != LayoutType.STRIDED || t.isDense())
                && t.elementCount() <= MAX_FLOATS;
    }

    /** The descriptor of a supported MatMul (constantB and relu false), or null. */
    static FullyConnected.Desc fullyConnected(Op op) {
        if (op.inputs().size() < 2 || op.inputs().size() > 3 || !op.inputs().stream().allMatch(Patterns::usable)
                || !usable(op.output(0))) {
            return null;
        }
        long[] a = op.input(0).dims();
        long[] b = op.input(1).dims();
        boolean ta = op.boolAttr("transpose_a");
        boolean tb = op.boolAttr("transpose_b");
        if (a.length < 2 || b.length != 2 || ta && a.length != 2) {
            return null;
        }
        long k = ta ? a[0] : a[a.length - 1];
        long m = op.input(0).elementCount() / k;
        long n = tb ? b[0] : b[1];
        if (k != (tb ? b[1] : b[0]) || op.output(0).elementCount() != m * n || m * k > MAX_FLOATS) {
            return null;
        }
        boolean bias = op.inputs().size() == 3;
        if (bias && (op.input(2).ndims() != 1 || op.input(2).dim(0) != n)) {
            return null;
        }
        return new FullyConnected.Desc((int) m, (int) k, (int) n, ta, tb, bias, false, false);
    }

    /** The descriptor of a supported convolution (constantWeights and relu false), or null. */
    static GemmConvolution.Desc convolution(Op op) {
        if (op.inputs().size() < 2 || op.inputs().size() > 3 || !op.inputs().stream().allMatch(Patterns::usable)
                || !usable(op.output(0))) {
            return null;
        }
        LogicalTensor src = op.input(0), wts = op.input(1), dst = op.output(0);
        if (src.ndims() != 4 || wts.ndims() != 4 || dst.ndims() != 4 || !"None".equals(op.stringAttr("auto_pad"))) {
            return null;
        }
        boolean last = "NXC".equals(op.stringAttr("data_format"));
        boolean xio = "XIO".equals(op.stringAttr("weights_format"));
        long[] s = src.dims(), w = wts.dims(), o = dst.dims();
        long cin = last ? s[3] : s[1], h = last ? s[1] : s[2], wd = last ? s[2] : s[3];
        long cout = last ? o[3] : o[1], ho = last ? o[1] : o[2], wo = last ? o[2] : o[3];
        long kh = xio ? w[0] : w[2], kw = xio ? w[1] : w[3];
        long wIn = xio ? w[2] : w[1], wOut = xio ? w[3] : w[0];
        long groups = op.longAttr("groups");
        long[] st = op.longsAttr("strides"), pb = op.longsAttr("pads_begin"), dl = op.longsAttr("dilations");
        if (groups < 1 || cin % groups != 0 || cout % groups != 0 || wIn != cin / groups || wOut != cout
                || st.length != 2 || pb.length != 2 || dl.length != 2 || s[0] != o[0]) {
            return null;
        }
        if (ho * wo * kh * kw * (cin / groups) > MAX_FLOATS) {
            return null;
        }
        boolean bias = op.inputs().size() == 3;
        if (bias && (op.input(2).ndims() != 1 || op.input(2).dim(0) != cout)) {
            return null;
        }
        return new GemmConvolution.Desc((int) s[0], (int) cin, (int) h, (int) wd, (int) cout, (int) ho, (int) wo,
                (int) kh, (int) kw, (int) st[0], (int) st[1], (int) pb[0], (int) pb[1], (int) dl[0], (int) dl[1],
                (int) groups, last, xio, bias, false, false);
    }

    /** Whether a convolution is depthwise (one input and one output channel per group), run by the direct loop. */
    static boolean depthwise(GemmConvolution.Desc d) {
        return d.groups() > 1 && d.groups() == d.cin() && d.cout() == d.cin();
    }

    /**
     * Whether a convolution runs as Winograd F(4x4, 3x3) rather than im2col + GEMM: 3x3, stride 1,
     * dilation 1, one group, at least 32 input and output channels and 28x28 output pixels. Measured
     * with {@code benchmarks.jar acl --layers} (NCHW, one thread, 512-bit vectors, on a shared 2-core
     * machine): 1.3-2.7x faster at 56x56 and 28x28 with 32-128 channels; at 14x14x256 0.99-1.9x from
     * run to run, at 14x14x64 and 7x7 (256, 512 channels: few tiles, 36 weight matrices streamed)
     * 0.5-0.9x, so those stay im2col.
     */
    static boolean winogradWins(GemmConvolution.Desc d) {
        return WinogradConvolution.applies(d) && d.cin() >= WINOGRAD_MIN_CHANNELS && d.cout() >= WINOGRAD_MIN_CHANNELS
                && (long) d.ho() * d.wo() >= WINOGRAD_MIN_PIXELS;
    }

    static final int WINOGRAD_MIN_CHANNELS = 32;
    static final long WINOGRAD_MIN_PIXELS = 28 * 28;

    /** The descriptor of a 2-D MaxPool / AvgPool with explicit padding, or null. */
    static Pooling.Desc pooling(Op op) {
        if (op.inputs().size() != 1 || op.outputs().size() != 1 || !usable(op.input(0)) || !usable(op.output(0))) {
            return null;
        }
        LogicalTensor src = op.input(0), dst = op.output(0);
        if (src.ndims() != 4 || dst.ndims() != 4 || !"None".equals(op.stringAttr("auto_pad"))) {
            return null;
        }
        boolean max = op.kind() == OpKind.MaxPool;
        boolean last = "NXC".equals(op.stringAttr("data_format"));
        long[] s = src.dims(), o = dst.dims();
        long[] k = op.longsAttr("kernel"), st = op.longsAttr("strides"), pb = op.longsAttr("pads_begin");
        long[] dl = max && op.hasAttr("dilations") ? op.longsAttr("dilations") : new long[] {1, 1};
        if (k.length != 2 || st.length != 2 || pb.length != 2 || dl.length < 2 || s[0] != o[0]) {
            return null;
        }
        long c = last ? s[3] : s[1];
        if (c != (last ? o[3] : o[1])) {
            return null;
        }
        long h = last ? s[1] : s[2], w = last ? s[2] : s[3], ho = last ? o[1] : o[2], wo = last ? o[2] : o[3];
        return new Pooling.Desc(max, (int) s[0], (int) c, (int) h, (int) w, (int) ho, (int) wo, (int) k[0], (int) k[1],
                (int) st[0], (int) st[1], (int) pb[0], (int) pb[1], (int) dl[0], (int) dl[1],
                !max && op.boolAttr("exclude_pad"), last);
    }

    /** The descriptor of a SoftMax (dst only, no stats output) on any axis, or null. */
    static SoftMax.Desc softmax(Op op) {
        if (op.inputs().size() != 1 || op.outputs().size() != 1 || !usable(op.input(0)) || !usable(op.output(0))
                || !java.util.Arrays.equals(op.input(0).dims(), op.output(0).dims())) {
            return null;
        }
        long[] dims = op.input(0).dims();
        long axis = op.longAttr("axis");
        int a = (int) (axis < 0 ? axis + dims.length : axis);
        if (a < 0 || a >= dims.length || dims[a] < 1 || dims[a] > Integer.MAX_VALUE) {
            return null;
        }
        long outer = 1, inner = 1;
        for (int i = 0; i < a; i++) {
            outer *= dims[i];
        }
        for (int i = a + 1; i < dims.length; i++) {
            inner *= dims[i];
        }
        return new SoftMax.Desc(outer, (int) dims[a], inner, "inf_as_zero".equals(op.stringAttr("mode")));
    }

    /** The descriptor of same-shaped binary arithmetic (no activation), or null. */
    static Elementwise.Desc elementwise(Op op) {
        if (op.inputs().size() != 2 || !op.inputs().stream().allMatch(Patterns::usable) || !usable(op.output(0))
                || !java.util.Arrays.equals(op.input(0).dims(), op.input(1).dims())
                || !java.util.Arrays.equals(op.input(0).dims(), op.output(0).dims())) {
            return null;
        }
        Elementwise.Arith arith = switch (op.kind()) {
            case Add -> Elementwise.Arith.ADD;
            case Subtract -> Elementwise.Arith.SUB;
            case Multiply -> Elementwise.Arith.MUL;
            case Maximum -> Elementwise.Arith.MAX;
            case Minimum -> Elementwise.Arith.MIN;
            default -> null;
        };
        return arith == null ? null : new Elementwise.Desc(arith, op.output(0).elementCount(), Elementwise.Act.NONE, 0, 0);
    }

    static UnsupportedFeatureException unsupported(String pattern, Op op) {
        return new UnsupportedFeatureException("acl backend cannot compile partition " + pattern + ": op " + op.describe()
                + " is not an f32 static-shape dense MatMul (2-D weights), 2-D convolution with explicit padding,"
                + " or same-shaped binary arithmetic, optionally followed by ReLU (Clamp after arithmetic),"
                + " nor a 2-D MaxPool/AvgPool with explicit padding or a SoftMax without stats");
    }
}
