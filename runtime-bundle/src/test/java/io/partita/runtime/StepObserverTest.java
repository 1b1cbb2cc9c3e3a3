package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.partita.cache.CaptureMemo;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * A step observer hears every step of every execution once, in the order of {@code steps()},
 * whether the call plans (first call, memo off) or replays a memoized plan, and the outputs are
 * those of an execution without it.
 */
class StepObserverTest {
    private static final Engine CPU = Engine.cpu();
    private final GraphRuntime rt = GraphRuntime.referenceOnly();

    @AfterEach
    void memoOn() {
        CaptureMemo.setEnabled(true);
    }

    /** x -> ReLU -> Tanh -> Sigmoid -> y: three partitions under the debug policy. */
    private CompiledGraphImpl chain() {
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0)).output(f32(1)).build());
        g.add(Op.builder(1, OpKind.Tanh).input(f32(1)).output(f32(2)).build());
        g.add(Op.builder(2, OpKind.Sigmoid).input(f32(2)).output(f32(3)).build());
        g.finalizeGraph();
        return (CompiledGraphImpl) rt.compile(g, PartitionPolicy.DEBUG, CPU);
    }

    private static LogicalTensor f32(long id) {
        return LogicalTensor.of(id, DataType.F32, 5, 4);
    }

    private record Heard(int step, long nanos) {
    }

    @Test
    void everyStepOnceInOrderWhenPlanningAndWhenReplaying() {
        for (boolean memo : new boolean[] {true, false}) {
            CaptureMemo.setEnabled(memo);
            try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = chain()) {
                assertEquals(3, cg.steps().size());
                Tensor x = Tensor.allocate(f32(0), CPU, arena);
                float[] v = new float[20];
                for (int i = 0; i < v.length; i++) {
                    v[i] = i * 0.3f - 3f;
                }
                x.copyFrom(v);
                Stream stream = new Stream(CPU);
                double[] plain = cg.execute(stream, Map.of(0L, x)).get(3L).toDoubleArray();
                for (int call = 0; call < 3; call++) { // a memoized plan is replayed from the second call on
                    List<Heard> heard = new ArrayList<>();
                    Map<Long, Tensor> out = cg.execute(stream, Map.of(0L, x), (s, ns) -> heard.add(new Heard(s, ns)));
                    assertEquals(List.of(0, 1, 2), heard.stream().map(Heard::step).toList(), "memo " + memo + ", call " + call);
                    assertTrue(heard.stream().allMatch(h -> h.nanos() > 0), heard.toString());
                    assertArrayEquals(plain, out.get(3L).toDoubleArray(), "memo " + memo + ", call " + call);
                }
            }
        }
    }

    @Test
    void anObserverThatThrowsFailsTheCallAndTheNextCallRuns() {
        try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = chain()) {
            Tensor x = Tensor.allocate(f32(0), CPU, arena);
            Stream stream = new Stream(CPU);
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> cg.execute(stream, Map.of(0L, x), (s, ns) -> {
                        throw new IllegalStateException("observer failed at step " + s);
                    }));
            assertEquals("observer failed at step 0", e.getMessage());
            assertEquals(20, cg.execute(stream, Map.of(0L, x)).get(3L).toDoubleArray().length);
        }
    }
}
