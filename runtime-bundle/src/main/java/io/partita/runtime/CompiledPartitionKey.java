package io.partita.runtime;

import java.util.List;

import io.partita.graph.Engine;
import io.partita.graph.FpMathMode;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * What makes two compilations the same: the backend registration (identity, so a swapped-in
 * backend never gets its predecessor's kernels), the claimed pattern, the ops with their
 * compile-time tensors, the ports, the engine and the fpmath mode.
 */
record CompiledPartitionKey(BackendHandle backend, String pattern, List<Op> ops, List<LogicalTensor> inputs,
        List<LogicalTensor> outputs, Engine engine, FpMathMode fpMathMode) {

    @Override
    public boolean equals(Object o) {
        return o instanceof CompiledPartitionKey k && k.backend == backend && k.pattern.equals(pattern)
                && k.engine.equals(engine) && k.fpMathMode == fpMathMode && k.inputs.equals(inputs)
                && k.outputs.equals(outputs) && k.ops.equals(ops);
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(backend) * 31 + java.util.Objects.hash(pattern, ops, inputs, outputs, engine,
                fpMathMode);
    }

    /** One line for management views: {@code matmul_post_ops: MatMul#0 ReLU#1 on cpu, f32[8,64] f32[64,64] -> f32[8,64]}. */
    String describe() {
        StringBuilder b = new StringBuilder(pattern).append(':');
        for (Op op : ops) {
            b.append(' ').append(op.kind().name()).append('#').append(op.id());
        }
        b.append(" on ").append(engine).append(',');
        for (LogicalTensor t : inputs) {
            b.append(' ').append(shape(t));
        }
        b.append(" ->");
        for (LogicalTensor t : outputs) {
            b.append(' ').append(shape(t));
        }
        return b.toString();
    }

    private static String shape(LogicalTensor t) {
        return t.dataType().name().toLowerCase(java.util.Locale.ROOT)
                + (t.dims() == null ? "[?]" : java.util.Arrays.toString(t.dims()).replace(" ", ""));
    }

    @Override
    public String toString() {
        return "compiled partition [" + backend.id() + ", " + pattern + ", ops "
                + ops.stream().map(Op::id).toList() + ", " + engine + "]";
    }
}
