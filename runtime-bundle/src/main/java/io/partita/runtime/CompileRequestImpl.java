package io.partita.runtime;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.partita.graph.Engine;
import io.partita.graph.FpMathMode;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.runtime.schema.registry.ShapePropagation;
import io.partita.spi.CompileRequest;

/** The runtime's compile request: ops with compile-time dims, ports, engine. */
record CompileRequestImpl(long partitionId, String pattern, List<Op> ops, List<LogicalTensor> inputs,
        List<LogicalTensor> outputs, Engine engine, FpMathMode fpMathMode) implements CompileRequest {

    @Override
    public Map<Long, LogicalTensor> inferShapes(List<LogicalTensor> concreteInputs, Map<Long, long[]> values) {
        Map<Long, LogicalTensor> known = new HashMap<>();
        for (LogicalTensor t : concreteInputs) {
            known.put(t.id(), t);
        }
        return ShapePropagation.run(ops, known, values).tensors();
    }
}
