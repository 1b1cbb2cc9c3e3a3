package io.partita.gpu.internal;

import static io.partita.gpu.internal.AgainstReference.constant;
import static io.partita.gpu.internal.AgainstReference.f32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/**
 * One compiled partition executed from several threads at once, each with its own buffers, on
 * its own streams and on one shared stream: kernel objects are shared, so their arguments must not
 * leak from one call into another.
 */
class ConcurrentExecutionTest {

    private static final Consumer<Graph> MLP = g -> {
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 13, 29), constant(1, 29, 31)).output(f32(2, 13, 31)).build());
        g.add(Op.builder(1, OpKind.BiasAdd).inputs(f32(2, 13, 31), constant(3, 31)).output(f32(4, 13, 31)).build());
        g.add(Op.builder(2, OpKind.GELU).input(f32(4, 13, 31)).output(f32(5, 13, 31)).build());
    };

    @Test
    void concurrentExecutesWithDifferentBuffersMatchTheReference() throws Exception {
        GraphRuntime rt = AgainstReference.WITH_GPU;
        Graph g = rt.createGraph(EngineKind.GPU);
        MLP.accept(g);
        g.finalizeGraph();
        Graph r = AgainstReference.REFERENCE.createGraph(EngineKind.CPU);
        MLP.accept(r);
        r.finalizeGraph();
        Engine e = AgainstReference.GPU0;
        Engine cpu = Engine.cpu();
        int threads = 4;
        Stream shared = new Stream(e);
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size());
        CompiledPartition cp = parts.get(0).compile(e);
        try (Arena arena = Arena.ofShared(); CompiledGraph rg = AgainstReference.REFERENCE.compile(r, PartitionPolicy.DEBUG, cpu)) {
            List<Map<Long, Tensor>> inputs = new ArrayList<>();
            List<double[]> expected = new ArrayList<>(); // copied: the reference graph reuses its output buffer
            for (int t = 0; t < threads; t++) {
                Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, e, arena, 100 + t);
                Map<Long, Tensor> refIn = new HashMap<>();
                in.forEach((id, x) -> refIn.put(id, Tensor.of(x.logicalTensor(), cpu, x.data())));
                inputs.add(in);
                expected.add(rg.execute(new Stream(cpu), refIn).get(cp.outputs().get(0).id()).toDoubleArray());
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<String>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    results.add(pool.submit(() -> {
                        List<Tensor> in = cp.inputs().stream().map(lt -> inputs.get(id).get(lt.id())).toList();
                        Tensor out = Tensor.allocate(cp.outputs().get(0), e, arena);
                        double[] want = expected.get(id);
                        double[] tol = OutputComparison.tolerance(out.logicalTensor().dataType());
                        for (int i = 0; i < 6; i++) {
                            Stream s = i % 2 == 0 ? new Stream(e) : shared;
                            out.copyFrom(new float[(int) out.logicalTensor().elementCount()]);
                            cp.execute(s, in, List.of(out));
                            OutputComparison.Result res = OutputComparison.compare(want, out.toDoubleArray(), tol[0], tol[1]);
                            if (!res.matches()) {
                                return "thread " + id + " call " + i + ": " + res.describe();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<String> f : results) {
                    String problem = f.get();
                    assertTrue(problem == null, problem);
                }
            } finally {
                pool.shutdown();
            }
        }
    }
}
