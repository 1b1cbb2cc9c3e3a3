package io.partita.backend.compiler.internal.exec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.partita.backend.compiler.internal.codegen.RowKernel;
import io.partita.backend.compiler.internal.codegen.RowKernelGenerator;
import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.backend.compiler.internal.fusion.OpIndex;
import io.partita.backend.compiler.internal.fusion.TransposedAttentionShape;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;

/**
 * A compiled transposed attention partition (see {@link TransposedAttentionShape}): the generated
 * score kernel, the layout that maps the score tensor's dims onto the first MatMul's rows and
 * columns, and how to find the operands behind their views. Static dims; the strides of the
 * tensors given at execution are honoured (memoised per layout).
 */
public final class TransposedAttentionProgram implements Program {
    private static final int MAX_GEOMETRIES = 64;
    /** Scratch a worker may hold for one partition; larger blocks are left to the other backends. */
    static final long MAX_SCRATCH_BYTES = 64L << 20;

    private final CompileRequest request;
    private final TransposedAttentionShape shape;
    private final Layout layout;
    private final RowKernel scores;
    private final boolean identityScores;
    private final int qPort;
    private final int kPort;
    private final int vPort;
    private final int outPort;
    private final List<ViewedInputs.Operand> operands;
    private final List<ViewedInputs.Operand> scalarOperands;
    private final ViewedInputs inputs;
    private final boolean infAsZero;
    private final ConcurrentHashMap<ShapeKey, TransposedAttention.Geometry> geometries =
            new ConcurrentHashMap<>();

    /**
     * How each dim of the score tensor [batch..., rows, keys] maps onto the first MatMul's output
     * [B..., M, N]: {@code batchDim[k] >= 0} names the MatMul batch dim it is, otherwise
     * {@code column[k]} is its step along N (a head dim splitting N; 0 for dims of size 1).
     */
    record Layout(long[] scoreDims, int[] batchDim, long[] column) {
    }

    public TransposedAttentionProgram(CompileRequest request, TransposedAttentionShape shape,
            RowKernelGenerator generator) {
        this.request = request;
        this.shape = shape;
        this.layout = layout(shape);
        if (layout == null) {
            throw new UnsupportedFeatureException("partition " + request.partitionId() + ": the views around the"
                    + " SoftMax do not make the first MatMul's rows the score rows and the probabilities its"
                    + " transpose back");
        }
        this.inputs = new ViewedInputs(request);
        if (request.outputs().size() != 1) {
            throw new UnsupportedFeatureException("partition " + request.partitionId() + ": fused attention writes"
                    + " one output, the partition has " + request.outputs().size());
        }
        long finalId = shape.suffix().isEmpty() ? shape.pv().output(0).id() : shape.suffix().getLast().output(0).id();
        outPort = inputs.outputPort(finalId);
        OpIndex index = new OpIndex(request.ops());
        qPort = inputs.portThroughViews(shape.qk().input(0).id(), index);
        kPort = inputs.portThroughViews(shape.qk().input(1).id(), index);
        vPort = inputs.portThroughViews(shape.pv().input(0).id(), index);
        ExprBuilder b = new ExprBuilder();
        b.bind(shape.scoreSource().id(), b.source());
        List<ViewedInputs.Operand> ops = new ArrayList<>();
        List<ViewedInputs.Operand> scalars = new ArrayList<>();
        int rank = layout.scoreDims().length;
        for (Op op : shape.scoreOps()) {
            b.add(op, rank, t -> inputs.leaf(b, t, index, ops, scalars));
        }
        Expr expr = b.build(shape.softmax().input(0).id());
        this.operands = List.copyOf(ops);
        this.scalarOperands = List.copyOf(scalars);
        this.identityScores = expr.nodes().size() == 1;
        this.scores = identityScores ? null
                : generator.kernel(expr, 0, "partition " + request.partitionId() + " (" + request.pattern() + ")");
        this.infAsZero = shape.softmax().hasAttr("mode") && "inf_as_zero".equals(shape.softmax().stringAttr("mode"));
    }

    /**
     * The layout of a transposed attention, or null when its views do not line up: the score
     * rows must be the MatMul's rows in order, the keys a contiguous run of its columns, the
     * other score dims its batch dims or further splits of its columns, and the probabilities
     * viewed back must be exactly the MatMul's output layout (what the second MatMul contracts).
     */
    public static Layout layout(TransposedAttentionShape shape) {
        long[] d0 = shape.qk().output(0).dims();
        int r0 = d0.length;
        if (r0 < 2) {
            return null;
        }
        // the operands' batch dims broadcast into the first MatMul's, and the second MatMul adds none
        long[] batch0 = Arrays.copyOf(d0, r0 - 2);
        if (!batchesInto(shape.qk().input(0).dims(), batch0) || !batchesInto(shape.qk().input(1).dims(), batch0)
                || !batchesInto(shape.pv().input(0).dims(), batch0) || shape.pv().output(0).dims().length != r0) {
            return null;
        }
        long m = d0[r0 - 2];
        long n = d0[r0 - 1];
        long[] st0 = Strides.dense(d0);
        long[] dims = d0;
        long[] st = st0;
        for (Op v : shape.qkViews()) {
            st = view(v, dims, st);
            dims = v.output(0).dims();
            if (st == null) {
                return null;
            }
        }
        long[] sd = shape.softmax().input(0).dims();
        long[] back = st;
        long[] bdims = sd;
        for (Op v : shape.pvViews()) {
            back = view(v, bdims, back);
            bdims = v.output(0).dims();
            if (back == null) {
                return null;
            }
        }
        if (!Arrays.equals(bdims, d0) || !Arrays.equals(shape.pv().input(1).dims(), d0)) {
            return null;
        }
        for (int t = 0; t < r0; t++) {
            if (d0[t] > 1 && back[t] != st0[t]) {
                return null; // the second MatMul would read the probabilities in another order
            }
        }
        int r = sd.length;
        int[] batchDim = new int[r];
        long[] column = new long[r];
        Arrays.fill(batchDim, -1);
        for (int k = 0; k < r; k++) {
            long s = st[k];
            if (k == r - 2) {
                if (sd[k] != m || m > 1 && s != n) {
                    return null;
                }
            } else if (sd[k] == 1) {
                continue;
            } else if (s < n && (k == r - 1 || s > 0)) {
                column[k] = s;
            } else if (k < r - 2) {
                int t = batchDimOf(d0, st0, s, sd[k]);
                if (t < 0) {
                    return null;
                }
                batchDim[k] = t;
            } else {
                return null; // keys not along the columns
            }
        }
        if (!Arrays.equals(Arrays.copyOf(shape.pv().output(0).dims(), r0 - 2), batch0)) {
            return null;
        }
        // each worker holds packed K, a block of probabilities and the transposed output for all keys
        long[] qd = shape.qk().input(0).dims();
        long[] vd = shape.pv().input(0).dims();
        long keys = (sd[r - 1] + 15) / 16 * 16;
        long head = qd[qd.length - 1];
        long values = shape.pv().boolAttr("transpose_a") ? vd[vd.length - 1] : vd[vd.length - 2];
        if ((head + 32 + values + 3) * keys * 4 > MAX_SCRATCH_BYTES) {
            return null;
        }
        return new Layout(sd, batchDim, column);
    }

    /** Whether a MatMul operand of at least two dims has batch dims that broadcast into {@code batch}. */
    private static boolean batchesInto(long[] dims, long[] batch) {
        if (dims == null || dims.length < 2 || dims.length - 2 > batch.length) {
            return false;
        }
        int shift = batch.length - (dims.length - 2);
        for (int i = 0; i < dims.length - 2; i++) {
            if (dims[i] != 1 && dims[i] != batch[i + shift]) {
                return false;
            }
        }
        return true;
    }

    private static int batchDimOf(long[] d0, long[] st0, long stride, long size) {
        for (int t = 0; t < d0.length - 2; t++) {
            if (st0[t] == stride && d0[t] == size) {
                return t;
            }
        }
        return -1;
    }

    private static long[] view(Op v, long[] dims, long[] st) {
        return switch (v.kind()) {
            case StaticTranspose -> Strides.transpose(st, v.longsAttr("order"));
            case StaticReshape -> Strides.reshape(dims, st, v.output(0).dims());
            default -> null;
        };
    }

    @Override
    public void execute(List<Tensor> in, List<Tensor> out, Parallel pool) {
        ShapeKey key = ShapeKey.of(List.of(), in, out);
        TransposedAttention.Geometry g = geometries.get(key);
        if (g == null) {
            g = resolve(in, out);
            if (geometries.size() >= MAX_GEOMETRIES) {
                geometries.clear();
            }
            geometries.put(key, g);
        }
        TransposedAttention.run(g, new FlashAttention.Buffers(in.get(qPort).data(), in.get(kPort).data(),
                in.get(vPort).data(), out.get(outPort).data(), null, ViewedInputs.data(operands, in),
                ViewedInputs.values(scalarOperands, in)), scores, identityScores, pool);
    }

    private TransposedAttention.Geometry resolve(List<Tensor> in, List<Tensor> out) {
        long[] d0 = shape.qk().output(0).dims();
        int r0 = d0.length;
        long[] batch0 = Arrays.copyOf(d0, r0 - 2);
        long[] sd = layout.scoreDims();
        int r = sd.length;
        boolean tb = shape.qk().boolAttr("transpose_b");
        boolean ta = shape.pv().boolAttr("transpose_a");
        LogicalTensor qt = shape.qk().input(0);
        LogicalTensor kt = shape.qk().input(1);
        LogicalTensor vt = shape.pv().input(0);
        long[] qs = inputs.viewStrides(qt.id(), in, inputs::dims, Map.of());
        long[] ks = inputs.viewStrides(kt.id(), in, inputs::dims, Map.of());
        long[] vs = inputs.viewStrides(vt.id(), in, inputs::dims, Map.of());
        long[] os = inputs.outputStrides(shape.suffix(), out.get(outPort).logicalTensor(), inputs::dims, Map.of());
        long[] qb = batchStrides(qt.dims(), qs, batch0);
        long[] kb = batchStrides(kt.dims(), ks, batch0);
        long[] vb = batchStrides(vt.dims(), vs, batch0);
        long[] ob = batchStrides(shape.pv().output(0).dims(), os, batch0);
        int qr = qs.length;
        int kr = ks.length;
        int vr = vs.length;
        int or = os.length;
        long kn = tb ? ks[kr - 2] : ks[kr - 1];
        long kd = tb ? ks[kr - 1] : ks[kr - 2];
        long vm = ta ? vs[vr - 2] : vs[vr - 1];
        long ve = ta ? vs[vr - 1] : vs[vr - 2];
        long on = os[or - 1];
        long oe = os[or - 2];
        long[] qBatch = new long[r - 2];
        long[] kBatch = new long[r - 2];
        long[] vBatch = new long[r - 2];
        long[] oBatch = new long[r - 2];
        for (int k = 0; k < r - 2; k++) {
            int t = layout.batchDim()[k];
            if (t >= 0) {
                qBatch[k] = qb[t];
                kBatch[k] = kb[t];
                vBatch[k] = vb[t];
                oBatch[k] = ob[t];
            } else {
                kBatch[k] = layout.column()[k] * kn;
                oBatch[k] = layout.column()[k] * on;
            }
        }
        long keyStep = layout.column()[r - 1];
        DataType ot = out.get(outPort).logicalTensor().dataType();
        FlashAttention.Access q = new FlashAttention.Access(qBatch, qs[qr - 2], qs[qr - 1], qt.dataType());
        FlashAttention.Access k = new FlashAttention.Access(kBatch, keyStep * kn, kd, kt.dataType());
        FlashAttention.Access v = new FlashAttention.Access(vBatch, vm, ve, vt.dataType());
        FlashAttention.Access o = new FlashAttention.Access(oBatch, keyStep * on, oe, ot);
        FlashAttention.Access[] ops = new FlashAttention.Access[operands.size()];
        for (int i = 0; i < ops.length; i++) {
            ViewedInputs.Operand op = operands.get(i);
            long[] st = inputs.viewStrides(op.tensor(), in, inputs::dims, Map.of());
            long[] bs = Strides.broadcast(inputs.dims(op.tensor()), st, sd);
            ops[i] = new FlashAttention.Access(Arrays.copyOf(bs, r - 2), bs[r - 2], bs[r - 1], op.type());
        }
        long[] qd = qt.dims();
        long[] od = shape.pv().output(0).dims();
        return new TransposedAttention.Geometry(Arrays.copyOf(sd, r - 2), toInt(sd[r - 2], "row count"),
                toInt(sd[r - 1], "key count"), toInt(qd[qd.length - 1], "head size"),
                toInt(od[od.length - 2], "value size"), q, k, v, o, ops, infAsZero);
    }

    /** Strides of a MatMul operand's batch dims broadcast over the first MatMul's. */
    private static long[] batchStrides(long[] dims, long[] strides, long[] batch0) {
        int n = dims.length;
        return Strides.broadcast(Arrays.copyOf(dims, n - 2), Arrays.copyOf(strides, n - 2), batch0);
    }

    private int toInt(long v, String what) {
        if (v > Integer.MAX_VALUE / 64) {
            throw new UnsupportedFeatureException("partition " + request.partitionId() + ": " + what + " " + v
                    + " is beyond the fused attention's limit");
        }
        return (int) v;
    }
}
