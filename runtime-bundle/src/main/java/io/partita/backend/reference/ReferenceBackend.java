package io.partita.backend.reference;

import java.util.List;
import java.util.Set;

import io.partita.graph.EngineKind;
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
        return new ReferenceKernel(request);
    }

    private static String describe(List<Op> ops) {
        return ops.size() == 1 ? ops.get(0).describe() : ops.stream().map(Op::describe).toList().toString();
    }
}
