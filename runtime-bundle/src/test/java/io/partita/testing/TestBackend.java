package io.partita.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import io.partita.backend.reference.ReferenceBackend;
import io.partita.graph.EngineKind;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.Backend;
import io.partita.spi.Claim;
import io.partita.spi.CompileRequest;
import io.partita.spi.GraphView;
import io.partita.spi.Kernel;

/**
 * A backend for tests: claims what its claim function returns and executes through the reference
 * interpreter (which runs any subgraph), counting compilations and executions.
 */
public final class TestBackend implements Backend {
    private final String id;
    private final int rank;
    private final BiFunction<GraphView, PartitionPolicy, List<Claim>> claims;
    public final AtomicInteger compiles = new AtomicInteger();
    public final AtomicInteger executions = new AtomicInteger();
    /** Calls prepared by a compiled graph's memoized plan, and runs of them (also counted as executions). */
    public final AtomicInteger prepares = new AtomicInteger();
    public final AtomicInteger preparedRuns = new AtomicInteger();
    /** When set, what every execution throws (a failing kernel). */
    public volatile RuntimeException failure;
    /** When set, what every prepared run throws. */
    public volatile RuntimeException preparedFailure;
    private final ReferenceBackend delegate = new ReferenceBackend();

    public TestBackend(String id, int rank, BiFunction<GraphView, PartitionPolicy, List<Claim>> claims) {
        this.id = id;
        this.rank = rank;
        this.claims = claims;
    }

    /** Claims every MatMul whose only consumer is a ReLU, as one partition with that ReLU. */
    public static TestBackend matmulRelu(String id, int rank) {
        return new TestBackend(id, rank, (g, policy) -> {
            List<Claim> out = new ArrayList<>();
            if (policy == PartitionPolicy.DEBUG) {
                return out;
            }
            for (Op op : g.ops()) {
                if (op.kind() != OpKind.MatMul || g.isClaimed(op.id())) {
                    continue;
                }
                List<Op> consumers = g.consumers(op.output(0).id());
                if (consumers.size() == 1 && consumers.get(0).kind() == OpKind.ReLU
                        && !g.isGraphOutput(op.output(0).id()) && !g.isClaimed(consumers.get(0).id())) {
                    out.add(Claim.of("matmul_relu", op.id(), consumers.get(0).id()));
                }
            }
            return out;
        });
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Set<EngineKind> engineKinds() {
        return Set.of(EngineKind.CPU);
    }

    @Override
    public int defaultRank() {
        return rank;
    }

    @Override
    public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        return claims.apply(graph, policy);
    }

    @Override
    public Kernel compile(CompileRequest request) {
        compiles.incrementAndGet();
        Kernel k = delegate.compile(request);
        return new Kernel() {
            @Override
            public void execute(io.partita.graph.Stream stream, List<io.partita.graph.Tensor> inputs,
                    List<io.partita.graph.Tensor> outputs) {
                executions.incrementAndGet();
                fail();
                k.execute(stream, inputs, outputs);
            }

            @Override
            public Call prepare(List<io.partita.graph.Tensor> inputs, List<io.partita.graph.Tensor> outputs) {
                prepares.incrementAndGet();
                Call c = Kernel.super.prepare(inputs, outputs);
                return stream -> {
                    preparedRuns.incrementAndGet();
                    RuntimeException f = preparedFailure;
                    if (f != null) {
                        throw f;
                    }
                    c.run(stream);
                };
            }
        };
    }

    private void fail() {
        RuntimeException f = failure;
        if (f != null) {
            throw f;
        }
    }

    /** Claims every op as a partition of its own (under any policy). */
    public static TestBackend opByOp(String id, int rank) {
        return new TestBackend(id, rank, (g, policy) -> {
            List<Claim> out = new ArrayList<>();
            for (Op op : g.ops()) {
                if (!g.isClaimed(op.id())) {
                    out.add(Claim.of("single", op.id()));
                }
            }
            return out;
        });
    }
}
