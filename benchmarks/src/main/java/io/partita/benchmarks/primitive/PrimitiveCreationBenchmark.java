package io.partita.benchmarks.primitive;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;

/**
 * What compiling a partition costs when the DNNL-style backend already holds a primitive for its
 * descriptor, against the anchor of building and partitioning the same graph without compiling.
 * Every invocation uses fresh tensor ids, so the runtime's compiled-partition cache misses and the
 * backend really compiles: {@code compileCachedPrimitive} keeps the shapes (primitive cache hit),
 * {@code compileNewPrimitive} changes N each time (a new descriptor: the primitive is created).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PrimitiveCreationBenchmark {
    private final Engine engine = Engine.cpu();
    private GraphRuntime runtime;
    private long next;

    @Setup
    public void setUp() {
        runtime = GraphRuntime.standalone();
        Partition p = partition(64);
        if (!p.backendId().equals("dnnl")) {
            throw new IllegalStateException("the dnnl backend must be on the class path; got " + p.backendId());
        }
    }

    /** MatMul + BiasAdd + ReLU (M=64, K=256, N=n) with constant weights, ids never used before. */
    private Partition partition(long n) {
        long base = (next++) * 8;
        Graph g = runtime.createGraph(EngineKind.CPU);
        LogicalTensor src = LogicalTensor.of(base, DataType.F32, 64, 256);
        LogicalTensor w = LogicalTensor.of(base + 1, DataType.F32, 256, n).withProperty(PropertyType.CONSTANT);
        LogicalTensor b = LogicalTensor.of(base + 2, DataType.F32, n).withProperty(PropertyType.CONSTANT);
        LogicalTensor mm = LogicalTensor.of(base + 3, DataType.F32, 64, n);
        LogicalTensor biased = LogicalTensor.of(base + 4, DataType.F32, 64, n);
        LogicalTensor out = LogicalTensor.of(base + 5, DataType.F32, 64, n);
        g.add(Op.builder(base, OpKind.MatMul).inputs(src, w).output(mm).build());
        g.add(Op.builder(base + 1, OpKind.BiasAdd).inputs(mm, b).output(biased).build());
        g.add(Op.builder(base + 2, OpKind.ReLU).input(biased).output(out).build());
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        return parts.get(0);
    }

    /** Anchor: the graph work every compile below also does. */
    @Benchmark
    public Partition partitionOnly() {
        return partition(1024);
    }

    @Benchmark
    public CompiledPartition compileCachedPrimitive() {
        return partition(1024).compile(engine);
    }

    @Benchmark
    public CompiledPartition compileNewPrimitive() {
        // N cycles through 100000 values, far more than the primitive cache holds
        return partition(1 + next % 100_000).compile(engine);
    }
}
