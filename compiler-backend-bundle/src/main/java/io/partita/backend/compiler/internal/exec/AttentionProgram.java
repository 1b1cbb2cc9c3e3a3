package io.partita.backend.compiler.internal.exec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.partita.backend.compiler.internal.codegen.RowKernel;
import io.partita.backend.compiler.internal.codegen.RowKernelGenerator;
import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.backend.compiler.internal.fusion.AttentionShape;
import io.partita.backend.compiler.internal.fusion.OpIndex;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;

/**
 * A compiled attention partition: the generated score kernel plus how to find Q, K, V, the
 * score operands and the output behind their view ops. Compiled once; each execution derives
 * the geometry from the tensors it is given (dynamic dims), memoised per shape.
 */
public final class AttentionProgram implements Program {
    private static final int MAX_GEOMETRIES = 256;

    private final CompileRequest request;
    private final AttentionShape shape;
    private final RowKernel scores;
    private final boolean identityScores;
    /** Partition input port of Q, K, V and each source operand; -1 if none. */
    private final int qPort;
    private final int kPort;
    private final int vPort;
    private final List<ViewedInputs.Operand> operands;
    private final List<ViewedInputs.Operand> scalarOperands;
    private final ViewedInputs inputs;
    /** Shape and order tensors of dynamic views, by id, with their input port: read at execution. */
    private final Map<Long, Integer> shapeInputs = new java.util.LinkedHashMap<>();
    private final boolean infAsZero;
    /** Partition output port of the attention output and of the SoftMax stats (-1: none). */
    private final int outPort;
    private final int statsPort;
    private final ConcurrentHashMap<ShapeKey, FlashAttention.Geometry> geometries = new ConcurrentHashMap<>();

    public AttentionProgram(CompileRequest request, AttentionShape shape, RowKernelGenerator generator) {
        this.request = request;
        this.shape = shape;
        this.inputs = new ViewedInputs(request);
        Op softmax = shape.softmax();
        boolean withStats = softmax.outputs().size() > 1;
        if (request.outputs().size() != (withStats ? 2 : 1)) {
            throw new UnsupportedFeatureException("partition " + request.partitionId() + ": fused attention writes the"
                    + " attention output" + (withStats ? " and the SoftMax stats" : "") + ", the partition has "
                    + request.outputs().size() + " outputs");
        }
        for (Op op : shape.ops()) {
            if (op.kind() == io.partita.graph.OpKind.DynamicReshape || op.kind() == io.partita.graph.OpKind.DynamicTranspose) {
                int port = inputs.inputPort(op.input(1).id());
                if (port < 0) {
                    throw new UnsupportedFeatureException("partition " + request.partitionId() + ": the "
                            + (op.kind() == io.partita.graph.OpKind.DynamicReshape ? "shape" : "order") + " of "
                            + op.describe() + " must be a partition input (it is read at execution)");
                }
                shapeInputs.put(op.input(1).id(), port);
            }
        }
        long finalId = shape.suffix().isEmpty() ? shape.pv().output(0).id()
                : shape.suffix().getLast().output(0).id();
        outPort = inputs.outputPort(finalId);
        statsPort = withStats ? inputs.outputPort(softmax.output(1).id()) : -1;
        OpIndex index = new OpIndex(request.ops());
        qPort = inputs.portThroughViews(shape.qk().input(0).id(), index);
        kPort = inputs.portThroughViews(shape.qk().input(1).id(), index);
        vPort = inputs.portThroughViews(shape.pv().input(1).id(), index);
        long[] sd = shape.qk().output(0).dims();
        int rank = sd.length;
        ExprBuilder b = new ExprBuilder();
        b.bind(shape.qk().output(0).id(), b.source());
        List<ViewedInputs.Operand> ops = new ArrayList<>();
        List<ViewedInputs.Operand> scalars = new ArrayList<>();
        for (Op op : shape.scoreOps()) {
            b.add(op, rank, t -> inputs.leaf(b, t, index, ops, scalars));
        }
        Expr expr = b.build(shape.softmax().input(0).id());
        this.operands = List.copyOf(ops);
        this.scalarOperands = List.copyOf(scalars);
        this.identityScores = expr.nodes().size() == 1;
        long kb = sd[rank - 1];
        this.scores = identityScores ? null : generator.kernel(expr, 0, "partition " + request.partitionId()
                + " (" + request.pattern() + ")");
        this.infAsZero = shape.softmax().hasAttr("mode") && "inf_as_zero".equals(shape.softmax().stringAttr("mode"));
        if (kb == 0) {
            throw new UnsupportedFeatureException("attention over zero keys");
        }
    }

    @Override
    public void execute(List<Tensor> in, List<Tensor> out, Parallel pool) {
        FlashAttention.Geometry g = geometry(in, out);
        FlashAttention.run(g, new FlashAttention.Buffers(in.get(qPort).data(), in.get(kPort).data(),
                in.get(vPort).data(), out.get(outPort).data(), statsPort < 0 ? null : out.get(statsPort).data(),
                ViewedInputs.data(operands, in), ViewedInputs.values(scalarOperands, in)), scores, identityScores,
                pool);
    }

    private FlashAttention.Geometry geometry(List<Tensor> in, List<Tensor> out) {
        Map<Long, long[]> values = new HashMap<>();
        for (Map.Entry<Long, Integer> e : shapeInputs.entrySet()) {
            Tensor t = in.get(e.getValue());
            long[] v = new long[(int) t.logicalTensor().elementCount()];
            for (int i = 0; i < v.length; i++) {
                v[i] = (long) io.partita.graph.ElementCodec.get(t.logicalTensor().dataType(), t.data(), i);
            }
            values.put(e.getKey(), v);
        }
        ShapeKey k = ShapeKey.of(values.values(), in, out);
        FlashAttention.Geometry g = geometries.get(k);
        if (g == null) {
            g = resolve(in, out, values);
            if (geometries.size() >= MAX_GEOMETRIES) {
                geometries.clear();
            }
            geometries.put(k, g);
        }
        return g;
    }

    private FlashAttention.Geometry resolve(List<Tensor> in, List<Tensor> out, Map<Long, long[]> values) {
        Map<Long, LogicalTensor> all = request.inferShapes(in.stream().map(Tensor::logicalTensor).toList(), values);
        long[] qDims = dims(all, shape.qk().input(0).id());
        long[] kDims = dims(all, shape.qk().input(1).id());
        long[] vDims = dims(all, shape.pv().input(1).id());
        long[] sDims = dims(all, shape.qk().output(0).id());
        long[] oDims = dims(all, shape.pv().output(0).id());
        int r = oDims.length;
        long[] batch = java.util.Arrays.copyOf(oDims, r - 2);
        if (!java.util.Arrays.equals(java.util.Arrays.copyOf(sDims, sDims.length - 2), batch)) {
            throw new UnsupportedFeatureException("partition " + request.partitionId() + ": score batch dims "
                    + LogicalTensor.dimsToString(sDims) + " differ from the output's " + LogicalTensor.dimsToString(oDims));
        }
        boolean tb = shape.qk().boolAttr("transpose_b");
        boolean vt = shape.pv().boolAttr("transpose_b");
        FlashAttention.Access q = access(shape.qk().input(0), qDims, in, all, values, batch, false);
        FlashAttention.Access k = access(shape.qk().input(1), kDims, in, all, values, batch, !tb);
        FlashAttention.Access v = access(shape.pv().input(1), vDims, in, all, values, batch, vt);
        FlashAttention.Access o = outputAccess(out.get(outPort).logicalTensor(), all, values, batch);
        FlashAttention.Access stats = null;
        if (statsPort >= 0) {
            LogicalTensor st = out.get(statsPort).logicalTensor();
            long[] sd = st.strides();
            long[] bs = Strides.broadcast(java.util.Arrays.copyOf(st.dims(), r - 2), java.util.Arrays.copyOf(sd, r - 2),
                    batch);
            stats = new FlashAttention.Access(bs, sd[r - 2], 0, st.dataType());
        }
        FlashAttention.Access[] ops = new FlashAttention.Access[operands.size()];
        for (int i = 0; i < ops.length; i++) {
            ViewedInputs.Operand op = operands.get(i);
            long[] od = dims(all, op.tensor());
            long[] st = inputs.viewStrides(op.tensor(), in, id -> dims(all, id), values);
            long[] bs = Strides.broadcast(od, st, sDims);
            ops[i] = new FlashAttention.Access(java.util.Arrays.copyOf(bs, r - 2), bs[r - 2], bs[r - 1], op.type());
        }
        int sq = toInt(sDims[r - 2], "query length");
        int sk = toInt(sDims[r - 1], "key length");
        int d = toInt(qDims[qDims.length - 1], "head size");
        int dv = toInt(oDims[r - 1], "value head size");
        return new FlashAttention.Geometry(batch, sq, sk, d, dv, q, k, v, o, stats, ops, infAsZero);
    }

    private int toInt(long v, String what) {
        if (v > Integer.MAX_VALUE / 64) {
            throw new UnsupportedFeatureException("partition " + request.partitionId() + ": " + what + " " + v
                    + " is beyond the fused attention's limit");
        }
        return (int) v;
    }

    private static long[] dims(Map<Long, LogicalTensor> all, long id) {
        return all.get(id).dims();
    }

    /** Batch strides over the output's batch dims and the strides of the last two dims (swapped if asked). */
    private FlashAttention.Access access(LogicalTensor t, long[] dims, List<Tensor> in, Map<Long, LogicalTensor> all,
            Map<Long, long[]> values, long[] batch, boolean swap) {
        long[] st = inputs.viewStrides(t.id(), in, id -> dims(all, id), values);
        DataType dt = t.dataType();
        int n = dims.length;
        long[] bd = java.util.Arrays.copyOf(dims, n - 2);
        long[] bs = Strides.broadcast(bd, java.util.Arrays.copyOf(st, n - 2), batch);
        return swap ? new FlashAttention.Access(bs, st[n - 1], st[n - 2], dt)
                : new FlashAttention.Access(bs, st[n - 2], st[n - 1], dt);
    }

    private FlashAttention.Access outputAccess(LogicalTensor given, Map<Long, LogicalTensor> all,
            Map<Long, long[]> values, long[] batch) {
        long[] st = inputs.outputStrides(shape.suffix(), given, id -> dims(all, id), values);
        int n = st.length;
        long[] oDims = dims(all, shape.pv().output(0).id());
        long[] bs = Strides.broadcast(java.util.Arrays.copyOf(oDims, n - 2), java.util.Arrays.copyOf(st, n - 2), batch);
        return new FlashAttention.Access(bs, st[n - 2], st[n - 1], given.dataType());
    }
}
