package io.partita.backend.reference;

import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

import io.partita.backend.reference.kernel.RefMemory;
import io.partita.graph.EngineKind;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.Backend;
import io.partita.spi.Claim;
import io.partita.spi.CompileRequest;
import io.partita.spi.GraphView;
import io.partita.spi.Kernel;

/**
 * The reference backend: every op of the schemas, computed simply and exactly in double
 * precision. Always present, lowest rank; it takes every op no other backend claims, and is the
 * oracle other backends are checked against.
 */
public final class ReferenceBackend implements Backend {
    public static final String ID = "reference";

    private final LongSupplier memoryLimit;

    /** A reference backend bound by no memory limit (only by the largest Java array). */
    public ReferenceBackend() {
        this(() -> Long.MAX_VALUE);
    }

    /**
     * @param memoryLimit the runtime's memory limit, read at each compile and execution: the
     *     most bytes of doubles a partition may hold while it runs
     */
    public ReferenceBackend(LongSupplier memoryLimit) {
        this.memoryLimit = memoryLimit;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String version() {
        return "1";
    }

    @Override
    public Set<EngineKind> engineKinds() {
        return Set.of(EngineKind.CPU);
    }

    @Override
    public int defaultRank() {
        return Integer.MIN_VALUE;
    }

    /** The runtime hands the reference backend every unclaimed op; it claims nothing itself. */
    @Override
    public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        return List.of();
    }

    @Override
    public Kernel compile(CompileRequest request) {
        if (request.engine().kind() != EngineKind.CPU) {
            throw new UnsupportedFeatureException("no backend claimed " + describe(request.ops())
                    + " for engine " + request.engine() + "; the reference backend runs on cpu engines only");
        }
        for (Op op : request.ops()) {
            if (RefOps.find(op.kind()) == null) {
                throw new UnsupportedFeatureException(op.describe() + ": op kind " + op.kind().spelling()
                        + " has no reference implementation");
            }
        }
        checkMemory(request);
        return new ReferenceKernel(request, memoryLimit);
    }

    /**
     * Refuses at compile a partition whose tensors, held as doubles until it is done, cannot fit:
     * what execution would check again (it also sees dims known only then).
     */
    private void checkMemory(CompileRequest request) {
        RefMemory heap = new RefMemory(memoryLimit.getAsLong(), partitionName(request));
        for (LogicalTensor t : request.inputs()) {
            if (t.isConcrete() && !t.hasDynamicDim()) {
                heap.take(t.id(), t.dataType(), t.dims());
            }
        }
        for (Op op : request.ops()) {
            for (LogicalTensor t : op.outputs()) {
                if (t.isConcrete() && !t.hasDynamicDim()) {
                    heap.take(t.id(), t.dataType(), t.dims());
                }
            }
        }
    }

    /** "partition 3 (op 5 (MatMul))", "partition 3 (op 5 (MatMul) and 4 more ops)". */
    static String partitionName(CompileRequest request) {
        List<Op> ops = request.ops();
        return "partition " + request.partitionId() + " (" + ops.get(0).describe()
                + (ops.size() > 1 ? " and " + (ops.size() - 1) + " more ops" : "") + ")";
    }

    private static String describe(List<Op> ops) {
        return ops.size() == 1 ? ops.get(0).describe() : ops.stream().map(Op::describe).toList().toString();
    }
}
