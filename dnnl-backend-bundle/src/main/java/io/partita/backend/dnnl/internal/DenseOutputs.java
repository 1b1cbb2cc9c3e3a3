package io.partita.backend.dnnl.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.ops.StridedCopy;
import io.partita.backend.dnnl.internal.plan.PlannedRequest;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Tensor;
import io.partita.spi.CompileRequest;

/**
 * Partition outputs declared with non-dense strides (channels-last views of NCX tensors, for
 * example). The primitives write dense rows, so such a partition is planned as if its outputs were
 * dense; each execution writes them to scratch and copies them into the caller's strided layout.
 * The copy costs one pass over the output, far less than leaving the op to the reference.
 */
final class DenseOutputs {
    private final boolean[] relayed;

    private DenseOutputs(boolean[] relayed) {
        this.relayed = relayed;
    }

    /** The copies write any output strides themselves. */
    private static final Set<OpKind> WRITE_ANY_STRIDES = Set.of(OpKind.Reorder, OpKind.TypeCast,
            OpKind.StaticReshape, OpKind.StaticTranspose, OpKind.Concat);

    /** Null when there is nothing to relay: every output is dense, or the primitive writes strides. */
    static DenseOutputs of(CompileRequest request) {
        if (request.ops().size() == 1 && WRITE_ANY_STRIDES.contains(request.ops().get(0).kind())) {
            return null;
        }
        // An int8 partition's Quantize writes the output strides itself (and the copy has no 8-bit types).
        if (request.ops().stream().anyMatch(o -> o.kind() == OpKind.Quantize)) {
            return null;
        }
        List<LogicalTensor> outs = request.outputs();
        boolean[] r = new boolean[outs.size()];
        boolean any = false;
        for (int i = 0; i < r.length; i++) {
            r[i] = needsRelay(outs.get(i));
            any |= r[i];
        }
        return any ? new DenseOutputs(r) : null;
    }

    static boolean needsRelay(LogicalTensor t) {
        return t.layoutType() == LayoutType.STRIDED && t.isConcrete() && !t.isDense();
    }

    private static LogicalTensor dense(LogicalTensor t) {
        return needsRelay(t) ? t.withStrides(LogicalTensor.denseStrides(t.dims())) : t;
    }

    /** The request the planner sees: the relayed outputs dense, wherever they appear in the ops. */
    CompileRequest plannedRequest(CompileRequest request) {
        List<LogicalTensor> outs = request.outputs().stream().map(DenseOutputs::dense).toList();
        List<Op> ops = new ArrayList<>();
        for (Op op : request.ops()) {
            Op.Builder b = op.toBuilder();
            for (int i = 0; i < op.inputs().size(); i++) {
                b.setInput(i, denseIfOutput(op.input(i), outs));
            }
            for (int i = 0; i < op.outputs().size(); i++) {
                b.setOutput(i, denseIfOutput(op.output(i), outs));
            }
            ops.add(b.build());
        }
        return new PlannedRequest(request, List.copyOf(ops), request.inputs(), outs);
    }

    private static LogicalTensor denseIfOutput(LogicalTensor t, List<LogicalTensor> outs) {
        for (LogicalTensor o : outs) {
            if (o.id() == t.id()) {
                return o;
            }
        }
        return t;
    }

    /** Dense scratch tensors standing in for the relayed outputs of one execution. */
    List<Tensor> scratch(List<Tensor> out, Arena arena) {
        List<Tensor> s = new ArrayList<>(out);
        for (int i = 0; i < relayed.length; i++) {
            if (relayed[i]) {
                Tensor t = out.get(i);
                s.set(i, Tensor.allocate(dense(t.logicalTensor()), t.engine(), arena));
            }
        }
        return s;
    }

    /** Copies the scratch results into the caller's strided outputs. */
    void copyBack(List<Tensor> scratch, List<Tensor> out, CpuTeam pool) {
        for (int i = 0; i < relayed.length; i++) {
            if (relayed[i]) {
                MemorySegment dense = scratch.get(i).data();
                StridedCopy.denseInto(dense, out.get(i).logicalTensor(), out.get(i).data(), pool);
            }
        }
    }
}
