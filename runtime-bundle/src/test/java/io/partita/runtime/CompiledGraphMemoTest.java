package io.partita.runtime;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.partita.cache.CaptureMemo;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * The execution plan of a compiled graph is memoized per capture set: a repeated execute with the
 * same input memory, shapes and shape values replays it; a change of buffer, shape value or shape
 * records again; the memo keeps no input alive and holds at most its capacity of plans.
 */
class CompiledGraphMemoTest {
    private static final Engine CPU = Engine.cpu();
    private final GraphRuntime rt = GraphRuntime.referenceOnly();

    @AfterEach
    void memoOn() {
        CaptureMemo.setEnabled(true);
    }

    /** x [n,4] -> ReLU -> Tanh -> y, with a dynamic first dimension. */
    private CompiledGraphImpl chain(long first) {
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, first, 4)).output(f32(1, first, 4)).build());
        g.add(Op.builder(1, OpKind.Tanh).input(f32(1, first, 4)).output(f32(2, first, 4)).build());
        g.finalizeGraph();
        return (CompiledGraphImpl) rt.compile(g, PartitionPolicy.DEBUG, CPU);
    }

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static Tensor input(Arena arena, long rows, float base) {
        Tensor t = Tensor.allocate(f32(0, rows, 4), CPU, arena);
        float[] v = new float[(int) rows * 4];
        for (int i = 0; i < v.length; i++) {
            v[i] = base + (i % 7) * 0.25f - 0.8f;
        }
        t.copyFrom(v);
        return t;
    }

    private static double[] expected(Tensor x) {
        double[] v = x.toDoubleArray();
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.tanh(Math.max(0, (float) v[i]));
        }
        return v;
    }

    private static void assertOutput(Tensor x, Map<Long, Tensor> out) {
        assertArrayEquals(expected(x), out.get(2L).toDoubleArray(), 1e-6);
        assertArrayEquals(x.logicalTensor().dims(), out.get(2L).logicalTensor().dims());
    }

    @Test
    void aRepeatedExecuteReplaysAndABufferChangeRecordsAgain() {
        try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = chain(3)) {
            Tensor a = input(arena, 3, 0);
            Stream s = new Stream(CPU);
            assertOutput(a, cg.execute(s, Map.of(0L, a)));
            assertOutput(a, cg.execute(s, Map.of(0L, a)));
            assertEquals(1, cg.memo().misses());
            assertEquals(1, cg.memo().hits());
            a.copyFrom(new float[] {1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6}); // new contents, same buffer: a replay
            assertOutput(a, cg.execute(s, Map.of(0L, a)));
            assertEquals(2, cg.memo().hits());
            Tensor b = input(arena, 3, 1); // another buffer: recorded again
            assertOutput(b, cg.execute(s, Map.of(0L, b)));
            assertEquals(2, cg.memo().misses());
            // a new Tensor object over the same memory is the same capture
            assertOutput(a, cg.execute(s, Map.of(0L, Tensor.of(a.logicalTensor(), CPU, a.data()))));
            assertEquals(3, cg.memo().hits());
            assertEquals(2, cg.memo().size());
        }
    }

    /** A chain of the given unary ops on [3,4] (tensor i to i + 1), each a partition of {@code ops}. */
    private static CompiledGraphImpl opByOp(io.partita.testing.TestBackend ops, OpKind... kinds) {
        RuntimeCore core = new RuntimeCore(new io.partita.cache.internal.CacheManagerImpl(Map.of()));
        core.addBackend(ops, 100);
        Graph g = core.createGraph(EngineKind.CPU);
        for (int i = 0; i < kinds.length; i++) {
            g.add(Op.builder(i, kinds[i]).input(f32(i, 3, 4)).output(f32(i + 1, 3, 4)).build());
        }
        g.finalizeGraph();
        return (CompiledGraphImpl) core.compile(g, PartitionPolicy.FUSION, CPU);
    }

    /**
     * The static body: partitions whose tensors all belong to the plan run the call their kernel
     * prepared once per recording; the one reading the caller's input (the head) executes per call.
     */
    @Test
    void aReplayRunsThePreparedCallsOfThePlansOwnPartitions() {
        io.partita.testing.TestBackend ops = io.partita.testing.TestBackend.opByOp("ops", 10);
        try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = opByOp(ops, OpKind.ReLU, OpKind.Tanh, OpKind.Abs)) {
            assertEquals(3, cg.steps().size());
            Tensor a = input(arena, 3, 0);
            Stream s = new Stream(CPU);
            for (int call = 0; call < 4; call++) {
                a.copyFrom(new float[] {call, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -call}); // same buffer, new values
                double[] want = expected(a);
                assertArrayEquals(want, cg.execute(s, Map.of(0L, a)).get(3L).toDoubleArray(), 1e-6, "call " + call);
            }
            assertEquals(1, cg.memo().misses());
            assertEquals(2, ops.prepares.get(), "Tanh and Abs prepared once, ReLU reads the caller's input");
            assertEquals(6, ops.preparedRuns.get(), "three replays of two prepared calls");
            assertEquals(12, ops.executions.get(), "every partition ran on every call");
            Tensor b = input(arena, 3, 1); // another buffer: a new recording prepares its own calls
            assertArrayEquals(expected(b), cg.execute(s, Map.of(0L, b)).get(3L).toDoubleArray(), 1e-6);
            assertArrayEquals(expected(b), cg.execute(s, Map.of(0L, b)).get(3L).toDoubleArray(), 1e-6);
            assertEquals(4, ops.prepares.get());
            CaptureMemo.setEnabled(false); // planning every call prepares nothing
            assertArrayEquals(expected(b), cg.execute(s, Map.of(0L, b)).get(3L).toDoubleArray(), 1e-6);
            assertEquals(4, ops.prepares.get());
        }
    }

    /** A kernel's exception reaches the caller as thrown, from a per-call execution and from a prepared call. */
    @Test
    void aKernelsExceptionReachesTheCallerUnchanged() {
        io.partita.testing.TestBackend ops = io.partita.testing.TestBackend.opByOp("ops", 10);
        try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = opByOp(ops, OpKind.ReLU, OpKind.Tanh)) {
            Tensor a = input(arena, 3, 0);
            Stream s = new Stream(CPU);
            cg.execute(s, Map.of(0L, a)); // records: Tanh's call is prepared
            IllegalArgumentException boom = new IllegalArgumentException("kernel failed");
            ops.failure = boom;
            assertSame(boom, assertThrows(IllegalArgumentException.class, () -> cg.execute(s, Map.of(0L, a))));
            ops.failure = null;
            IllegalStateException prepared = new IllegalStateException("prepared call failed");
            ops.preparedFailure = prepared;
            int runs = ops.preparedRuns.get();
            assertSame(prepared, assertThrows(IllegalStateException.class, () -> cg.execute(s, Map.of(0L, a))));
            assertEquals(runs + 1, ops.preparedRuns.get(), "Tanh's prepared call ran and threw");
            ops.preparedFailure = null;
            assertArrayEquals(expected(a), cg.execute(s, Map.of(0L, a)).get(2L).toDoubleArray(), 1e-6);
        }
    }

    @Test
    void aShapeChangeRecordsAgain() {
        try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = chain(DYNAMIC_DIM)) {
            Stream s = new Stream(CPU);
            Tensor big = input(arena, 5, 0);
            // the same memory seen as 2 rows and as 5 rows: two capture sets
            Tensor small = Tensor.of(f32(0, 2, 4), CPU, big.data());
            assertOutput(small, cg.execute(s, Map.of(0L, small)));
            assertOutput(big, cg.execute(s, Map.of(0L, big)));
            assertOutput(small, cg.execute(s, Map.of(0L, small)));
            assertOutput(big, cg.execute(s, Map.of(0L, big)));
            assertEquals(2, cg.memo().misses());
            assertEquals(2, cg.memo().hits());
        }
    }

    /** Other strides over the same memory are refused, naming them; the recorded plan still replays. */
    @Test
    void aCallRefusedForItsStridesLeavesTheMemoIntact() {
        try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = chain(DYNAMIC_DIM)) {
            Stream s = new Stream(CPU);
            Tensor rows = input(arena, 4, 0);
            assertOutput(rows, cg.execute(s, Map.of(0L, rows)));
            assertOutput(rows, cg.execute(s, Map.of(0L, rows)));
            Tensor cols = Tensor.of(LogicalTensor.of(0, DataType.F32, new long[] {4, 4}, LayoutType.STRIDED,
                    new long[] {1, 4}, PropertyType.VARIABLE), CPU, rows.data());
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> cg.execute(s, Map.of(0L, cols)));
            assertTrue(e.getMessage().contains("strides [1,4]"), e.getMessage());
            assertEquals(1, cg.memo().hits());
            assertOutput(rows, cg.execute(s, Map.of(0L, rows)));
            assertEquals(2, cg.memo().hits());
        }
    }

    @Test
    void aShapeValueChangeRecordsAgain() {
        Graph g = rt.createGraph(EngineKind.CPU);
        LogicalTensor shape = LogicalTensor.of(1, DataType.S64, 2);
        g.add(Op.builder(0, OpKind.DynamicReshape).inputs(f32(0, 2, 6), shape)
                .output(LogicalTensor.unknownRank(2, DataType.F32)).attr("special_zero", false).build());
        g.add(Op.builder(1, OpKind.ReLU).input(LogicalTensor.unknownRank(2, DataType.F32))
                .output(LogicalTensor.unknownRank(3, DataType.F32)).build());
        g.finalizeGraph();
        try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = (CompiledGraphImpl) rt.compile(g, PartitionPolicy.DEBUG, CPU)) {
            Stream s = new Stream(CPU);
            Tensor x = Tensor.allocate(f32(0, 2, 6), CPU, arena);
            x.copyFrom(new float[] {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12});
            Tensor dims = Tensor.allocate(shape, CPU, arena);
            dims.copyFrom(new double[] {3, 4});
            Map<Long, Tensor> in = Map.of(0L, x, 1L, dims);
            assertArrayEquals(new long[] {3, 4}, cg.execute(s, in).get(3L).logicalTensor().dims());
            assertArrayEquals(new long[] {3, 4}, cg.execute(s, in).get(3L).logicalTensor().dims());
            assertEquals(1, cg.memo().hits());
            dims.copyFrom(new double[] {6, 2}); // same buffer, another value
            Tensor y = cg.execute(s, in).get(3L);
            assertArrayEquals(new long[] {6, 2}, y.logicalTensor().dims());
            assertArrayEquals(new double[] {1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11, 0}, y.toDoubleArray());
            assertEquals(2, cg.memo().misses());
        }
    }

    @Test
    void theMemoKeepsNoInputAlive() throws InterruptedException {
        try (CompiledGraphImpl cg = chain(3)) {
            Stream s = new Stream(CPU);
            runOnce(cg, s);
            assertEquals(1, cg.memo().size());
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (cg.memo().size() > 0 && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(20);
            }
            assertEquals(0, cg.memo().size(), "the entry goes with the input's memory");
            assertEquals(1, cg.memo().releasedCount());
        }
    }

    /** An input in an automatic arena, unreachable once this returns. */
    private static void runOnce(CompiledGraphImpl cg, Stream s) {
        Tensor a = input(Arena.ofAuto(), 3, 0);
        assertOutput(a, cg.execute(s, Map.of(0L, a)));
    }

    @Test
    void aClosedArenaIsNeverMatchedAgain() {
        try (CompiledGraphImpl cg = chain(3)) {
            Stream s = new Stream(CPU);
            try (Arena a = Arena.ofConfined()) {
                Tensor x = input(a, 3, 0);
                cg.execute(s, Map.of(0L, x));
            }
            try (Arena b = Arena.ofShared()) {
                Tensor x = input(b, 3, 2);
                assertOutput(x, cg.execute(s, Map.of(0L, x)));
                assertEquals(2, cg.memo().misses());
            }
        }
    }

    @Test
    void theLeastRecentlyUsedPlansAreEvicted() {
        try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = chain(3)) {
            Stream s = new Stream(CPU);
            int capacity = CaptureMemo.defaultCapacity();
            Tensor[] xs = new Tensor[capacity + 2];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = input(arena, 3, i);
                assertOutput(xs[i], cg.execute(s, Map.of(0L, xs[i])));
            }
            assertEquals(capacity, cg.memo().size());
            assertEquals(2, cg.memo().releasedCount());
            assertOutput(xs[0], cg.execute(s, Map.of(0L, xs[0]))); // evicted: recorded again
            assertEquals(xs.length + 1, cg.memo().misses());
            assertOutput(xs[xs.length - 1], cg.execute(s, Map.of(0L, xs[xs.length - 1])));
            assertEquals(1, cg.memo().hits());
        }
    }

    @Test
    void turnedOffEveryCallPlans() {
        try (Arena arena = Arena.ofShared(); CompiledGraphImpl cg = chain(3)) {
            CaptureMemo.setEnabled(false);
            Tensor a = input(arena, 3, 0);
            for (int i = 0; i < 3; i++) {
                assertOutput(a, cg.execute(new Stream(CPU), Map.of(0L, a)));
            }
            assertEquals(0, cg.memo().misses() + cg.memo().hits());
            assertTrue(cg.memo().size() == 0);
        }
    }
}
