package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.DataType;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.ops.ConvPoolGeometry;

/**
 * Reference kernels of convolutions, pooling and interpolation.
 *
 * <p>Every convolution kind is one of three computations on a canonical problem ({@link ConvRef}):
 * Convolution and ConvTransposeBackwardData are a forward convolution, ConvolutionBackwardData and
 * ConvTranspose a backward-data convolution (ConvTranspose adds its bias), and the two
 * backward-weights kinds a backward-weights convolution. A transposed convolution is the
 * convolution whose src side is the transposed convolution's dst: its IOX weights
 * {@code [IC, OC/g, K]} are that convolution's OIX weights, and XOI its XIO. Paddings resolve
 * {@code auto_pad} from the convolution's src-side sizes as oneDNN's shape inference does
 * (ConvTranspose with its own rule), see {@link ConvPoolGeometry#resolvePads}.
 */
public final class ConvPoolKernels {
    private ConvPoolKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.Convolution, ConvPoolKernels::convolution);
        r.accept(OpKind.ConvolutionBackwardData, ConvPoolKernels::convolutionBackwardData);
        r.accept(OpKind.ConvolutionBackwardWeights, ConvPoolKernels::convolutionBackwardWeights);
        r.accept(OpKind.ConvTranspose, ConvPoolKernels::convTranspose);
        r.accept(OpKind.ConvTransposeBackwardData, ConvPoolKernels::convTransposeBackwardData);
        r.accept(OpKind.ConvTransposeBackwardWeights, ConvPoolKernels::convTransposeBackwardWeights);
        r.accept(OpKind.AvgPool, ConvPoolKernels::avgPool);
        r.accept(OpKind.AvgPoolBackward, ConvPoolKernels::avgPoolBackward);
        r.accept(OpKind.MaxPool, ConvPoolKernels::maxPool);
        r.accept(OpKind.MaxPoolBackward, ConvPoolKernels::maxPoolBackward);
        r.accept(OpKind.Interpolate, ConvPoolKernels::interpolate);
        r.accept(OpKind.InterpolateBackward, ConvPoolKernels::interpolateBackward);
    }

    // ---------------------------------------------------------------------------------------------
    // Convolutions

    /**
     * The canonical problem of a convolution-family op.
     *
     * @param srcSide dims of the tensor on the convolution's src side (data format)
     * @param dstSide dims of the tensor on the convolution's dst side (data format)
     * @param weights dims of the weights (weights format)
     * @param transposed whether the op is a transposed convolution (weights IOX/XOI)
     * @param padsFromDst whether auto_pad resolves from the dst side with the transposed rule
     */
    private static ConvRef.Geom convGeom(Op op, long[] srcSide, long[] dstSide, long[] weights, boolean transposed,
            boolean padsFromDst) {
        String fmt = op.stringAttr("data_format");
        String wfmt = op.stringAttr("weights_format");
        int groups = (int) op.longAttr("groups");
        int rank = weights.length;
        int ns = rank - 2;
        // Rows of the canonical weights: conv "O" (IOX's I for a transposed convolution).
        long rowsAll = weights[ConvPoolGeometry.weightsAxis(wfmt, transposed ? 'I' : 'O', rank)];
        long perGroupIn = weights[ConvPoolGeometry.weightsAxis(wfmt, transposed ? 'O' : 'I', rank)];
        long[] k = ConvPoolGeometry.weightsSpatial(weights, wfmt);
        long[] strides = op.longsAttr("strides");
        long[] dil = op.longsAttr("dilations");
        long[] pb = pads(op.longsAttr("pads_begin"), ns);
        long[] pe = pads(op.longsAttr("pads_end"), ns);
        long[][] p = padsFromDst
                ? ConvPoolGeometry.resolvePads(op.stringAttr("auto_pad"), ConvPoolGeometry.dataSpatial(dstSide, fmt), k,
                        strides, dil, pb, pe, true)
                : ConvPoolGeometry.resolvePads(op.stringAttr("auto_pad"), ConvPoolGeometry.dataSpatial(srcSide, fmt), k,
                        strides, dil, pb, pe, false);
        return new ConvRef.Geom(groups, (int) perGroupIn, (int) (rowsAll / groups), SpatialLayout.of(srcSide, fmt),
                SpatialLayout.of(dstSide, fmt), SpatialLayout.to3(k, 1), SpatialLayout.to3(strides, 1),
                SpatialLayout.to3(dil, 1), SpatialLayout.to3(p[0], 0));
    }

    private static long[] pads(long[] v, int ns) {
        return v.length == 0 ? new long[ns] : v;
    }

    /**
     * Weights as dense {@code [rows][perGroupIn][K]}: channels-first formats already are; XIO/XOI
     * {@code [K][perGroupIn][rows]} are transposed.
     */
    private static double[] canonicalWeights(RefTensor w, String wfmt) {
        double[] data = w.data();
        if (!ConvPoolGeometry.weightsSpatialFirst(wfmt)) {
            return data;
        }
        long[] d = w.dims();
        int rows = (int) d[d.length - 1];
        int inner = (int) d[d.length - 2];
        int k = data.length / (rows * inner);
        double[] out = new double[data.length];
        for (int kk = 0; kk < k; kk++) {
            for (int i = 0; i < inner; i++) {
                int from = (kk * inner + i) * rows;
                for (int o = 0; o < rows; o++) {
                    out[(o * inner + i) * k + kk] = data[from + o];
                }
            }
        }
        return out;
    }

    /** Writes canonical {@code [rows][perGroupIn][K]} weights into a tensor of format wfmt. */
    private static void storeWeights(double[] canonical, RefTensor out, String wfmt) {
        double[] data = out.data();
        if (!ConvPoolGeometry.weightsSpatialFirst(wfmt)) {
            System.arraycopy(canonical, 0, data, 0, data.length);
            return;
        }
        long[] d = out.dims();
        int rows = (int) d[d.length - 1];
        int inner = (int) d[d.length - 2];
        int k = data.length / (rows * inner);
        for (int kk = 0; kk < k; kk++) {
            for (int i = 0; i < inner; i++) {
                int to = (kk * inner + i) * rows;
                for (int o = 0; o < rows; o++) {
                    data[to + o] = canonical[(o * inner + i) * k + kk];
                }
            }
        }
    }

    private static void convolution(RefContext ctx) {
        Op op = ctx.op();
        RefTensor src = ctx.in(0);
        RefTensor w = ctx.in(1);
        RefTensor dst = ctx.out(0);
        ConvRef.Geom g = convGeom(op, src.dims(), dst.dims(), w.dims(), false, false);
        ConvRef.forward(g, src.data(), canonicalWeights(w, op.stringAttr("weights_format")),
                ctx.hasInput(2) ? ctx.in(2).data() : null, dst.data());
    }

    private static void convolutionBackwardData(RefContext ctx) {
        Op op = ctx.op();
        RefTensor dd = ctx.in(0);
        RefTensor w = ctx.in(1);
        RefTensor ds = ctx.out(0);
        ConvRef.Geom g = convGeom(op, ds.dims(), dd.dims(), w.dims(), false, false);
        ConvRef.backwardData(g, dd.data(), canonicalWeights(w, op.stringAttr("weights_format")), ds.data());
    }

    private static void convolutionBackwardWeights(RefContext ctx) {
        Op op = ctx.op();
        RefTensor src = ctx.in(0);
        RefTensor dd = ctx.in(1);
        RefTensor dw = ctx.out(0);
        ConvRef.Geom g = convGeom(op, src.dims(), dd.dims(), dw.dims(), false, false);
        double[] canonical = new double[dw.size()];
        ConvRef.backwardWeights(g, src.data(), dd.data(), canonical);
        storeWeights(canonical, dw, op.stringAttr("weights_format"));
    }

    private static void convTranspose(RefContext ctx) {
        Op op = ctx.op();
        RefTensor src = ctx.in(0);
        RefTensor w = ctx.in(1);
        RefTensor dst = ctx.out(0);
        ConvRef.Geom g = convGeom(op, dst.dims(), src.dims(), w.dims(), true, true);
        double[] y = dst.data();
        ConvRef.backwardData(g, src.data(), canonicalWeights(w, op.stringAttr("weights_format")), y);
        if (ctx.hasInput(2)) {
            double[] b = ctx.in(2).data();
            SpatialLayout l = g.src();
            int size = l.size();
            for (int n = 0; n < l.n(); n++) {
                for (int c = 0; c < l.c(); c++) {
                    int base = l.base(n, c);
                    for (int s = 0; s < size; s++) {
                        y[base + s * l.xStride()] += b[c];
                    }
                }
            }
        }
    }

    private static void convTransposeBackwardData(RefContext ctx) {
        Op op = ctx.op();
        RefTensor dd = ctx.in(0);
        RefTensor w = ctx.in(1);
        RefTensor ds = ctx.out(0);
        ConvRef.Geom g = convGeom(op, dd.dims(), ds.dims(), w.dims(), true, false);
        ConvRef.forward(g, dd.data(), canonicalWeights(w, op.stringAttr("weights_format")), null, ds.data());
    }

    private static void convTransposeBackwardWeights(RefContext ctx) {
        Op op = ctx.op();
        RefTensor src = ctx.in(0);
        RefTensor dd = ctx.in(1);
        RefTensor dw = ctx.out(0);
        ConvRef.Geom g = convGeom(op, dd.dims(), src.dims(), dw.dims(), true, false);
        double[] canonical = new double[dw.size()];
        ConvRef.backwardWeights(g, dd.data(), src.data(), canonical);
        storeWeights(canonical, dw, op.stringAttr("weights_format"));
    }

    // ---------------------------------------------------------------------------------------------
    // Pooling

    private static PoolRef.Geom poolGeom(Op op, long[] srcDims, long[] dstDims) {
        String fmt = op.stringAttr("data_format");
        int ns = srcDims.length - 2;
        long[] k = op.longsAttr("kernel");
        long[] strides = op.longsAttr("strides");
        long[] dil = new long[ns];
        java.util.Arrays.fill(dil, 1);
        if (op.hasAttr("dilations")) {
            System.arraycopy(op.longsAttr("dilations"), 0, dil, 0, ns);
        }
        long[][] p = ConvPoolGeometry.resolvePads(op.stringAttr("auto_pad"), ConvPoolGeometry.dataSpatial(srcDims, fmt),
                k, strides, dil, pads(op.longsAttr("pads_begin"), ns), pads(op.longsAttr("pads_end"), ns), false);
        return new PoolRef.Geom(SpatialLayout.of(srcDims, fmt), SpatialLayout.of(dstDims, fmt), SpatialLayout.to3(k, 1),
                SpatialLayout.to3(strides, 1), SpatialLayout.to3(dil, 1), SpatialLayout.to3(p[0], 0));
    }

    private static void avgPool(RefContext ctx) {
        RefTensor dst = ctx.out(0);
        PoolRef.avgForward(poolGeom(ctx.op(), ctx.in(0).dims(), dst.dims()), ctx.in(0).data(), dst.data(),
                ctx.op().boolAttr("exclude_pad"));
    }

    private static void avgPoolBackward(RefContext ctx) {
        RefTensor ds = ctx.out(0);
        PoolRef.avgBackward(poolGeom(ctx.op(), ds.dims(), ctx.in(0).dims()), ctx.in(0).data(), ds.data(),
                ctx.op().boolAttr("exclude_pad"));
    }

    private static void maxPool(RefContext ctx) {
        RefTensor dst = ctx.out(0);
        PoolRef.maxForward(poolGeom(ctx.op(), ctx.in(0).dims(), dst.dims()), ctx.in(0).data(), dst.data(),
                lowest(ctx.op().output(0).dataType()));
    }

    private static void maxPoolBackward(RefContext ctx) {
        RefTensor ds = ctx.out(0);
        PoolRef.maxBackward(poolGeom(ctx.op(), ctx.in(0).dims(), ctx.in(1).dims()), ctx.in(0).data(), ctx.in(1).data(),
                ds.data());
    }

    /** The lowest finite value of a floating-point type: a max pool window with no src value. */
    static double lowest(DataType t) {
        return switch (t) {
            case BF16 -> -Float.intBitsToFloat(0x7F7F0000);
            case F16 -> -65504.0;
            default -> -Float.MAX_VALUE;
        };
    }

    // ---------------------------------------------------------------------------------------------
    // Interpolation

    private static boolean linear(Op op) {
        return !"nearest".equals(op.stringAttr("mode"));
    }

    private static boolean alignCorners(Op op) {
        return "align_corners".equals(op.stringAttr("coordinate_transformation_mode"));
    }

    private static void interpolate(RefContext ctx) {
        Op op = ctx.op();
        String fmt = op.stringAttr("data_format");
        RefTensor src = ctx.in(0);
        RefTensor dst = ctx.out(0);
        InterpRef.forward(SpatialLayout.of(src.dims(), fmt), SpatialLayout.of(dst.dims(), fmt), linear(op),
                alignCorners(op), src.data(), dst.data());
    }

    private static void interpolateBackward(RefContext ctx) {
        Op op = ctx.op();
        String fmt = op.stringAttr("data_format");
        RefTensor dd = ctx.in(1);
        RefTensor ds = ctx.out(0);
        InterpRef.backward(SpatialLayout.of(ds.dims(), fmt), SpatialLayout.of(dd.dims(), fmt), linear(op),
                alignCorners(op), dd.data(), ds.data());
    }
}
