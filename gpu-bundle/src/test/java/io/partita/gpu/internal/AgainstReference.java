package io.partita.gpu.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.runtime.StandaloneRuntime;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/**
 * Builds a graph twice (for engine gpu.0 with the gpu backend, and for the CPU on the reference
 * alone), runs both on the same seeded inputs and compares every output. Tensors of the gpu engine
 * live in host memory, so the reference reads the very same buffers.
 */
final class AgainstReference {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();

    static final GpuBackend BACKEND = new GpuBackend(StandaloneRuntime.newCacheManager());
    static final GraphRuntime WITH_GPU = StandaloneRuntime.of(BACKEND);
    /** A second gpu backend forced to the tiled MatMul kernel (AUTO picks register rows on PoCL's CPU device). */
    static final GpuBackend TILED_BACKEND = tiled();
    static final GraphRuntime WITH_TILED = StandaloneRuntime.of(TILED_BACKEND);
    static final GraphRuntime REFERENCE = GraphRuntime.referenceOnly();
    static final Engine GPU0 = new Engine(EngineKind.GPU, 0);

    private AgainstReference() {
    }

    private static GpuBackend tiled() {
        GpuBackend b = new GpuBackend(StandaloneRuntime.newCacheManager());
        b.setMatMulKernel(io.partita.gpu.internal.plan.Planner.MatMulKernel.TILED);
        return b;
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static LogicalTensor constant(long id, long... dims) {
        return f32(id, dims).withProperty(PropertyType.CONSTANT);
    }

    static LogicalTensor out(long id) {
        return LogicalTensor.unknownRank(id, DataType.F32);
    }

    /**
     * @return the partitions the gpu runtime made; every one is asserted to be the gpu backend's
     */
    static List<Partition> check(Consumer<Graph> build, long seed) {
        return check(WITH_GPU, build, seed);
    }

    /** As {@link #check(Consumer, long)}, and again with the tiled MatMul kernel. */
    static List<Partition> checkBothMatMulKernels(Consumer<Graph> build, long seed) {
        check(WITH_TILED, build, seed);
        return check(WITH_GPU, build, seed);
    }

    static List<Partition> check(GraphRuntime withGpu, Consumer<Graph> build, long seed) {
        assertTrue(withGpu.backends().stream().anyMatch(b -> b.id().equals("gpu")), "gpu is discovered");
        assertFalse(BACKEND.devices().isEmpty(), "an OpenCL device (PoCL in CI): " + BACKEND.description());
        Graph g = withGpu.createGraph(EngineKind.GPU);
        build.accept(g);
        g.finalizeGraph();
        Graph r = REFERENCE.createGraph(EngineKind.CPU);
        build.accept(r);
        r.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        for (Partition p : parts) {
            assertEquals("gpu", p.backendId(), "partition " + p.id() + " " + p.pattern() + " " + p.ops());
        }
        Engine cpu = Engine.cpu();
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = withGpu.compile(g, PartitionPolicy.FUSION, GPU0);
                CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, cpu)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, GPU0, arena, seed);
            Map<Long, Tensor> refIn = new HashMap<>();
            in.forEach((id, t) -> refIn.put(id, Tensor.of(t.logicalTensor(), cpu, t.data())));
            Map<Long, Tensor> expected = rg.execute(new Stream(cpu), refIn);
            for (int round = 0; round < 2; round++) {
                Map<Long, Tensor> actual = cg.execute(new Stream(GPU0), in);
                assertEquals(expected.keySet(), actual.keySet());
                for (Map.Entry<Long, Tensor> x : expected.entrySet()) {
                    OutputComparison.Result res = OutputComparison.compare(x.getValue(), actual.get(x.getKey()));
                    assertTrue(res.matches(), "output " + x.getKey() + " round " + round + ": " + res.describe());
                }
            }
            return parts;
        }
    }
}
