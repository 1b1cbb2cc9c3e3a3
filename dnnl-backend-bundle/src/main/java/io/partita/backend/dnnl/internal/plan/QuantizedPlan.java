package io.partita.backend.dnnl.internal.plan;

import java.util.ArrayList;
import java.util.List;

import io.partita.backend.dnnl.internal.ops.QuantParams;
import io.partita.backend.dnnl.internal.ops.QuantizedMatMulPrimitive;
import io.partita.graph.DataType;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PropertyType;
import io.partita.spi.CompileRequest;

/**
 * Plans an int8 MatMul partition (Dequantize, Dequantize → MatMul, post-ops [→ Quantize]): the f32
 * MatMul partition it contains is planned as usual, over dense f32 stand-ins for the dequantized
 * src and weights (the weights keep their constant property, so they are packed once), and the
 * quantization parameters wrap it ({@link QuantizedMatMulPrimitive}).
 */
final class QuantizedPlan {
    private QuantizedPlan() {
    }

    static boolean applies(CompileRequest r) {
        return r.ops().stream().anyMatch(o -> o.kind() == OpKind.Dequantize);
    }

    static Object describe(CompileRequest r) {
        Op mm = only(r, OpKind.MatMul);
        Op dqSrc = producer(r, mm.input(0));
        Op dqWeights = producer(r, mm.input(1));
        Op q = r.ops().stream().filter(o -> o.kind() == OpKind.Quantize).findFirst().orElse(null);
        List<LogicalTensor> in = new ArrayList<>(r.inputs());
        int srcPort = Planner.indexOf(in, dqSrc.input(0).id());
        int weightsPort = Planner.indexOf(in, dqWeights.input(0).id());
        LogicalTensor srcQ = in.get(srcPort);
        LogicalTensor weightsQ = in.get(weightsPort);
        LogicalTensor srcF = dense(mm.input(0).id(), srcQ.dims(), PropertyType.UNDEF);
        LogicalTensor weightsF = dense(mm.input(1).id(), weightsQ.dims(), weightsQ.property());
        in.set(srcPort, srcF);
        in.set(weightsPort, weightsF);
        List<LogicalTensor> out = r.outputs();
        LogicalTensor dstF = null;
        if (q != null) {
            dstF = dense(q.input(0).id(), out.get(0).dims(), PropertyType.UNDEF);
            out = List.of(dstF);
        }
        List<Op> ops = new ArrayList<>(r.ops());
        ops.removeIf(o -> o.id() == dqSrc.id() || o.id() == dqWeights.id() || q != null && o.id() == q.id());
        Object inner = Planner.describe(new PlannedRequest(r, List.copyOf(ops), List.copyOf(in), out));
        return new QuantizedMatMulPrimitive.Desc(inner, srcPort, QuantParams.of(dqSrc, srcQ.dataType(), srcQ.ndims()),
                srcF, weightsPort, QuantParams.of(dqWeights, weightsQ.dataType(), weightsQ.ndims()), weightsF,
                q == null ? null : QuantParams.of(q, r.outputs().get(0).dataType(), r.outputs().get(0).ndims()), dstF);
    }

    private static LogicalTensor dense(long id, long[] dims, PropertyType property) {
        return LogicalTensor.of(id, DataType.F32, dims, LayoutType.STRIDED, LogicalTensor.denseStrides(dims), property);
    }

    private static Op only(CompileRequest r, OpKind kind) {
        return r.ops().stream().filter(o -> o.kind() == kind).findFirst()
                .orElseThrow(() -> new IllegalStateException("int8 partition " + r.partitionId() + " has no " + kind));
    }

    private static Op producer(CompileRequest r, LogicalTensor t) {
        for (Op o : r.ops()) {
            if (o.kind() == OpKind.Dequantize && o.output(0).id() == t.id()) {
                return o;
            }
        }
        throw new IllegalStateException("int8 partition " + r.partitionId() + ": tensor " + t.id()
                + " is not dequantized inside it");
    }
}
