package io.partita.formats.onnx;


import java.lang.foreign.Arena;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.formats.FuzzLoop;
import io.partita.formats.FuzzLoop.Outcome;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.PartitaException;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Tensor;
import io.partita.testing.Corpus;

/**
 * Mutated ONNX node-test models and TensorProto files (see {@link OnnxMutations}) must be refused
 * with a clear {@link io.partita.graph.PartitaException} or give a model whose graph the reference
 * runtime builds and finalizes (or refuses with a PartitaException), and whose constants fit their
 * tensors. Time-bounded: {@code -Dpartita.fuzz.seconds=N}, reproducible with
 * {@code -Dpartita.fuzz.seed=S} (see {@link FuzzLoop}).
 */
class OnnxModelsFuzzTest {
    private static final GraphRuntime RUNTIME = GraphRuntime.referenceOnly();
    /** Constants larger than this are not copied into tensors (the copy would only test memory). */
    private static final long MAX_CONSTANT_BYTES = 64L << 20;

    @Test
    void mutatedModelsAreRefusedClearlyOrGiveValidGraphs() {
        OnnxMutations mutations = new OnnxMutations(Corpus.root().resolve("onnx-node"), bytes -> {
            try {
                OnnxModels.read(RUNTIME.opSchemas(), bytes, "seed.onnx");
                return true;
            } catch (PartitaException e) {
                return false;
            }
        });
        FuzzLoop.Report report = FuzzLoop.run("fuzz_onnx",
                r -> r.nextInt(6) == 0 ? mutations.tensor(r) : mutations.model(r), OnnxModelsFuzzTest::run);
        FuzzLoop.printAndAssertClean(report);
    }

    private static Outcome run(FuzzLoop.Input input) {
        if (input.extension().equals("pb")) {
            return runTensor(input);
        }
        OnnxModel m;
        try {
            m = OnnxModels.read(RUNTIME.opSchemas(), input.bytes(), "fuzz.onnx");
        } catch (PartitaException e) {
            return FuzzLoop.refusal(e, Outcome.REFUSED);
        }
        try {
            Graph g = m.graph().toGraph(RUNTIME).finalizeGraph();
            g.partitions(PartitionPolicy.FUSION);
        } catch (PartitaException e) {
            return FuzzLoop.refusal(e, Outcome.REJECTED);
        }
        checkConstants(m);
        return Outcome.VALID;
    }

    /** Each constant's value fits the constant tensor the graph declares with its id. */
    private static void checkConstants(OnnxModel m) {
        long total = 0;
        for (OnnxTensor c : m.constants().values()) {
            total += c.data().length;
        }
        if (total > MAX_CONSTANT_BYTES) {
            return;
        }
        Map<Long, LogicalTensor> declared = new java.util.HashMap<>();
        for (Op op : m.graph().ops()) {
            for (LogicalTensor t : op.inputs()) {
                declared.put(t.id(), t);
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> tensors = m.constantTensors(Engine.cpu(), arena);
            for (Map.Entry<Long, Tensor> e : tensors.entrySet()) {
                LogicalTensor d = declared.get(e.getKey());
                if (d != null && (d.property() != PropertyType.CONSTANT || d.dataType() != e.getValue().logicalTensor()
                        .dataType() || d.elementCount() != e.getValue().logicalTensor().elementCount())) {
                    throw new AssertionError("constant " + e.getKey() + " " + e.getValue().logicalTensor()
                            + " does not fit the graph's tensor " + d);
                }
            }
        }
    }

    private static Outcome runTensor(FuzzLoop.Input input) {
        OnnxTensor t;
        try {
            t = OnnxModels.readTensor(input.bytes(), "fuzz.pb");
        } catch (PartitaException e) {
            return FuzzLoop.refusal(e, Outcome.REFUSED);
        }
        long n = t.elementCount();
        DataType dt = t.dataType();
        if (n < 0 || dt.byteSize(n) != t.data().length) {
            throw new AssertionError("tensor " + t + " has " + t.data().length + " bytes for " + n + " elements");
        }
        if (n <= 1 << 20) {
            t.toDoubleArray();
        }
        return Outcome.VALID;
    }
}
