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

    @Override
    public String toString() {
        return "compiled partition [" + backend.id() + ", " + pattern + ", ops "
                + ops.stream().map(Op::id).toList() + ", " + engine + "]";
    }
}
