package io.partita.backend.reference.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import io.partita.formats.json.GraphJson;
import io.partita.graph.AttrValue;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Tensor;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.testing.Corpus;
import io.partita.testkit.check.RandomInputs;

/**
 * The benchdnn harness lines that touch the eltwise single-op files: op kinds substituted into
 * another kind's file ({@code --op-kind}), data types changed ({@code --dt}), attributes set
 * ({@code --op-attrs}). Every variant must build, compile and produce finite outputs from the
 * random inputs its schema's value domains ask for.
 */
class EltwiseHarnessCasesTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();

    private record Case(String file, OpKind kind, DataType dt, Map<String, AttrValue> attrs) {
        String name() {
            return file + " as " + kind.spelling() + " " + dt.spelling() + (attrs.isEmpty() ? "" : " " + attrs);
        }
    }

    private static final List<DataType> ALL = List.of(DataType.F32, DataType.BF16, DataType.F16);

    private static List<Case> cases() {
        List<Case> c = new ArrayList<>();
        for (DataType dt : ALL) {
            for (OpKind k : List.of(OpKind.Abs, OpKind.Exp, OpKind.GELU, OpKind.HardSwish, OpKind.Log, OpKind.Mish,
                    OpKind.Round, OpKind.Sigmoid, OpKind.Sqrt, OpKind.Square, OpKind.Tanh)) {
                c.add(new Case("op/f32/abs.json", k, dt, Map.of()));
            }
            for (OpKind k : List.of(OpKind.AbsBackward, OpKind.GELUBackward, OpKind.HardSwishBackward,
                    OpKind.MishBackward)) {
                c.add(new Case("op/f32/abs_bwd.json", k, dt, Map.of()));
            }
            for (OpKind k : List.of(OpKind.ReLUBackward, OpKind.SigmoidBackward, OpKind.SqrtBackward,
                    OpKind.TanhBackward)) {
                c.add(new Case("op/f32/relu_bwd.json", k, dt, Map.of()));
            }
            for (OpKind k : List.of(OpKind.Elu, OpKind.LeakyReLU)) {
                c.add(new Case("op/f32/elu.json", k, dt, Map.of()));
            }
            for (String mode : List.of("gelu_erf", "gelu_tanh")) {
                c.add(new Case("op/f32/gelu.json", OpKind.GELU, dt, Map.of("mode", AttrValue.of(mode))));
            }
            c.add(new Case("op/f32/hardsigmoid.json", OpKind.HardSigmoid, dt, Map.of("beta", AttrValue.of(1f))));
            c.add(new Case("op/f32/hardsigmoid_bwd.json", OpKind.HardSigmoidBackward, dt,
                    Map.of("alpha", AttrValue.of(2f), "beta", AttrValue.of(1f))));
            for (String f : List.of("clamp", "clamp_bwd", "elu_bwd", "hardsigmoid", "hardsigmoid_bwd", "relu",
                    "reciprocal", "softplus_bwd")) {
                Op op = GraphJson.parse(Corpus.benchdnnGraph().resolve("op/f32/" + f + ".json")).ops().get(0);
                c.add(new Case("op/f32/" + f + ".json", op.kind(), dt, Map.of()));
            }
        }
        return c;
    }

    @TestFactory
    Stream<DynamicTest> harnessVariantsRun() {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> run(c)));
    }

    /**
     * Every op of this family in every corpus file, alone: validates, infers its declared output
     * dims, and (when its input dims are known) runs on random inputs with finite results, whatever
     * the other ops of its file are.
     */
    @TestFactory
    Stream<DynamicTest> everyEltwiseOpOfTheCorpusRunsAlone() {
        List<DynamicTest> tests = new ArrayList<>();
        for (var f : Corpus.graphFiles()) {
            for (Op op : GraphJson.parse(f).ops()) {
                if (FAMILY.contains(op.kind())) {
                    tests.add(DynamicTest.dynamicTest(Corpus.name(f) + " op " + op.id() + " " + op.kind().spelling(),
                            () -> runAlone(op)));
                }
            }
        }
        assertTrue(tests.size() >= 80, "the corpus has many eltwise ops, found " + tests.size());
        return tests.stream();
    }

    private static final java.util.Set<OpKind> FAMILY = java.util.EnumSet.of(OpKind.Abs, OpKind.AbsBackward,
            OpKind.Clamp, OpKind.ClampBackward, OpKind.Elu, OpKind.EluBackward, OpKind.Exp, OpKind.GELU,
            OpKind.GELUBackward, OpKind.HardSigmoid, OpKind.HardSigmoidBackward, OpKind.HardSwish,
            OpKind.HardSwishBackward, OpKind.LeakyReLU, OpKind.Log, OpKind.Mish, OpKind.MishBackward,
            OpKind.Reciprocal, OpKind.ReLU, OpKind.ReLUBackward, OpKind.Round, OpKind.Sigmoid,
            OpKind.SigmoidBackward, OpKind.SoftPlus, OpKind.SoftPlusBackward, OpKind.Sqrt, OpKind.SqrtBackward,
            OpKind.Square, OpKind.Tanh, OpKind.TanhBackward);

    private static void runAlone(Op op) {
        var schema = OpSchemas.find(op.kind());
        Op v = schema.validate(op);
        List<LogicalTensor> outs = schema.inferOutputs(v, v.inputs(), Map.of());
        boolean known = v.inputs().stream().allMatch(t -> t.dims() != null
                && java.util.Arrays.stream(t.dims()).allMatch(d -> d >= 0));
        if (!known) {
            return;
        }
        assertTrue(java.util.Arrays.stream(outs.get(0).dims()).allMatch(d -> d >= 0), "output dims known");
        if (java.util.Arrays.stream(op.input(0).dims()).reduce(1, (a, b) -> a * b) > (1 << 20)) {
            return; // validated and inferred above; too big to run in a unit test
        }
        // tensors inside a graph may have an undefined layout: alone, they are plain dense tensors
        Op.Builder b = op.toBuilder();
        for (int i = 0; i < op.inputs().size(); i++) {
            b.setInput(i, dense(op.input(i)));
        }
        for (int i = 0; i < op.outputs().size(); i++) {
            b.setOutput(i, dense(op.output(i)));
        }
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(b.build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Map<Long, Tensor> out = cg.execute(new io.partita.graph.Stream(e), RandomInputs.forGraph(SCHEMAS, g, e, arena, 3));
            for (Tensor t : out.values()) {
                double[] d = t.toDoubleArray();
                for (int i = 0; i < d.length; i++) {
                    assertTrue(Double.isFinite(d[i]), op.describe() + ": element " + i + " is " + d[i]);
                }
            }
        }
    }

    private static LogicalTensor dense(LogicalTensor t) {
        return t.layoutType() == LayoutType.STRIDED || t.dims() == null ? t
                : t.withLayout(LayoutType.STRIDED).withStrides(LogicalTensor.denseStrides(t.dims()));
    }

    private static void run(Case c) {
        Op original = GraphJson.parse(Corpus.benchdnnGraph().resolve(c.file())).ops().get(0);
        Op.Builder b = Op.builder(original.id(), c.kind());
        var takes = OpSchemas.find(c.kind()).attrs().keySet();
        // benchdnn drops the attributes a substituted kind does not take
        original.attrs().forEach((k, v) -> {
            if (takes.contains(k)) {
                b.attr(k, v);
            }
        });
        c.attrs().forEach(b::attr);
        for (LogicalTensor t : original.inputs()) {
            b.input(t.withDataType(c.dt()));
        }
        for (LogicalTensor t : original.outputs()) {
            b.output(t.withDataType(c.dt()));
        }
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(b.build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, e, arena, 7);
            Map<Long, Tensor> out = cg.execute(new io.partita.graph.Stream(e), in);
            assertEquals(1, out.size());
            for (Tensor t : out.values()) {
                double[] v = t.toDoubleArray();
                for (int i = 0; i < v.length; i++) {
                    assertTrue(Double.isFinite(v[i]), c.name() + ": element " + i + " is " + v[i]);
                }
            }
        }
    }
}
