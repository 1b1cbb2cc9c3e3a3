package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.partita.cache.CaptureMemo;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.runtime.RuntimeCore;

/**
 * A compiled graph's memoized plan runs the DNNL-style kernels of its inner partitions through the
 * calls they prepared once (pool and invocation bound): every replay must still read the current
 * contents of the caller's buffers and of the intermediates, large tensors must still be split
 * over the pool, and constants must come from the cache as before. Checked against the reference
 * backend on every call, with new values in the same buffers each time.
 */
class PreparedCallsTest {
    private DnnlRuntime dnnl;
    private RuntimeCore runtime;
    private final Engine engine = Engine.cpu();

    @BeforeEach
    void setUp() {
        dnnl = DnnlRuntime.create();
        runtime = dnnl.runtime();
    }

    @AfterEach
    void tearDown() {
        CaptureMemo.setEnabled(true);
        dnnl.close();
    }

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    /** x -> MatMul(constant w) -> Sigmoid -> Tanh -> Add(y) -> ReLU, one partition per op (DEBUG). */
    private static Graph chain(GraphRuntime rt, int rows) {
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, rows, 33), f32(1, 33, 45).withProperty(PropertyType.CONSTANT))
                .output(f32(2, rows, 45)).build());
        g.add(Op.builder(1, OpKind.Sigmoid).input(f32(2, rows, 45)).output(f32(3, rows, 45)).build());
        g.add(Op.builder(2, OpKind.Tanh).input(f32(3, rows, 45)).output(f32(4, rows, 45)).build());
        g.add(Op.builder(3, OpKind.Add).inputs(f32(4, rows, 45), f32(5, rows, 45)).output(f32(6, rows, 45)).build());
        g.add(Op.builder(4, OpKind.ReLU).input(f32(6, rows, 45)).output(f32(7, rows, 45)).build());
        return g.finalizeGraph();
    }

    private static void fill(Tensor t, int call) {
        float[] v = new float[(int) t.logicalTensor().elementCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) Math.sin(0.37 * i + 1.3 * call + t.logicalTensor().id());
        }
        t.copyFrom(v);
    }

    @Test
    void replaysReadTheCurrentValuesAndMatchTheReference() {
        // 7 rows: one block per elementwise op; 3000 rows: many blocks, split over the worker pool
        for (int rows : new int[] {7, 3000}) {
            Graph g = chain(runtime, rows);
            GraphRuntime ref = GraphRuntime.referenceOnly();
            Graph rg = chain(ref, rows);
            try (Arena arena = Arena.ofShared(); CompiledGraph cg = runtime.compile(g, PartitionPolicy.DEBUG, engine);
                    CompiledGraph rcg = ref.compile(rg, PartitionPolicy.DEBUG, engine)) {
                assertTrue(cg.steps().stream().allMatch(s -> s.partition().backendId().equals("dnnl")), cg.steps().toString());
                Map<Long, Tensor> in = new HashMap<>();
                for (LogicalTensor t : g.inputs()) {
                    in.put(t.id(), Tensor.allocate(t, engine, arena));
                }
                Stream s = new Stream(engine);
                for (int call = 0; call < 5; call++) {
                    for (Tensor t : in.values()) {
                        if (t.logicalTensor().id() != 1 || call == 0) { // constants keep their values
                            fill(t, call);
                        }
                    }
                    float[] got = cg.execute(s, in).get(7L).toFloatArray();
                    float[] want = rcg.execute(s, in).get(7L).toFloatArray();
                    assertArrayEquals(want, got, 1e-5f, rows + " rows, call " + call);
                }
            }
        }
    }

    @Test
    void theSameValuesWithAndWithoutReplay() {
        Graph g = chain(runtime, 64);
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = runtime.compile(g, PartitionPolicy.DEBUG, engine)) {
            Map<Long, Tensor> in = new HashMap<>();
            for (LogicalTensor t : g.inputs()) {
                Tensor x = Tensor.allocate(t, engine, arena);
                fill(x, 3);
                in.put(t.id(), x);
            }
            Stream s = new Stream(engine);
            CaptureMemo.setEnabled(false);
            float[] planned = cg.execute(s, in).get(7L).toFloatArray();
            CaptureMemo.setEnabled(true);
            List<float[]> replayed = List.of(cg.execute(s, in).get(7L).toFloatArray(),
                    cg.execute(s, in).get(7L).toFloatArray(), cg.execute(s, in).get(7L).toFloatArray());
            for (float[] r : replayed) {
                assertArrayEquals(planned, r, "bit for bit: the same kernels on the same data");
            }
        }
    }
}
