package io.partita.backend.dnnl.internal.plan;

import java.util.ArrayList;
import java.util.List;

import io.partita.backend.dnnl.internal.ops.QuantParams;
import io.partita.backend.dnnl.internal.ops.QuantizedPrimitive;
import io.partita.graph.DataType;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PropertyType;
import io.partita.spi.CompileRequest;

/**
 * Plans an int8 partition (Dequantize ops → MatMul or Convolution, post-ops [→ Quantize]): the f32
 * partition it contains is planned as usual, over dense f32 stand-ins for the dequantized inputs
 * (the weights keep their constant property, so they are packed once), and the quantization
 * parameters wrap it ({@link QuantizedPrimitive}).
 */
final class QuantizedPlan {
    private QuantizedPlan() {
    }

    static boolean applies(CompileRequest r) {
        return r.ops().stream().anyMatch(o -> o.kind() == OpKind.Dequantize);
    }

    static Object describe(CompileRequest r) {
        Op base = r.ops().stream().filter(o -> o.kind() == OpKind.MatMul || o.kind() == OpKind.Convolution)
                .findFirst().orElseThrow(() -> new IllegalStateException("int8 partition " + r.partitionId()
                        + " has no MatMul or Convolution"));
        long weightsValue = base.input(1).id();
        List<LogicalTensor> in = new ArrayList<>(r.inputs());
        List<QuantizedPrimitive.Dequantized> operands = new ArrayList<>();
        QuantizedPrimitive.Dequantized weights = null;
        for (Op dq : r.ops()) {
            if (dq.kind() != OpKind.Dequantize) {
                continue;
            }
            int port = Planner.indexOf(in, dq.input(0).id());
            LogicalTensor q = r.inputs().get(port);
            boolean isWeights = dq.output(0).id() == weightsValue;
            LogicalTensor f = dense(dq.output(0).id(), q.dims(), isWeights ? q.property() : PropertyType.UNDEF);
            in.set(port, f);
            QuantizedPrimitive.Dequantized d = new QuantizedPrimitive.Dequantized(port,
                    QuantParams.of(dq, q.dataType(), q.ndims()), f);
            if (isWeights) {
                weights = d;
            } else {
                operands.add(d);
            }
        }
        if (weights == null) {
            throw new IllegalStateException("int8 partition " + r.partitionId() + ": the weights are not dequantized");
        }
        Op q = r.ops().stream().filter(o -> o.kind() == OpKind.Quantize).findFirst().orElse(null);
        List<LogicalTensor> out = r.outputs();
        LogicalTensor dstF = null;
        if (q != null) {
            dstF = dense(q.input(0).id(), out.get(0).dims(), PropertyType.UNDEF);
            out = List.of(dstF);
        }
        List<Op> ops = new ArrayList<>(r.ops());
        ops.removeIf(o -> o.kind() == OpKind.Dequantize || o.kind() == OpKind.Quantize);
        Object inner = Planner.describe(new PlannedRequest(r, List.copyOf(ops), List.copyOf(in), out));
        LogicalTensor dst = r.outputs().get(0);
        return new QuantizedPrimitive.Desc(inner, List.copyOf(operands), weights,
                q == null ? null : QuantParams.of(q, dst.dataType(), dst.ndims()), dstF);
    }

    private static LogicalTensor dense(long id, long[] dims, PropertyType property) {
        return LogicalTensor.of(id, DataType.F32, dims, LayoutType.STRIDED, LogicalTensor.denseStrides(dims), property);
    }
}
