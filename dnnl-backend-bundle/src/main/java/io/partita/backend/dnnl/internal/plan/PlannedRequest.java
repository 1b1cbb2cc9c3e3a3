package io.partita.backend.dnnl.internal.plan;

import java.util.List;
import java.util.Map;

import io.partita.graph.Engine;
import io.partita.graph.FpMathMode;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.spi.CompileRequest;

/** A compile request as the planner should see it: other ops and ports, everything else from the original. */
public record PlannedRequest(CompileRequest original, List<Op> ops, List<LogicalTensor> inputs,
        List<LogicalTensor> outputs) implements CompileRequest {
    @Override
    public long partitionId() {
        return original.partitionId();
    }

    @Override
    public String pattern() {
        return original.pattern();
    }

    @Override
    public Engine engine() {
        return original.engine();
    }

    @Override
    public FpMathMode fpMathMode() {
        return original.fpMathMode();
    }

    @Override
    public Map<Long, LogicalTensor> inferShapes(List<LogicalTensor> in, Map<Long, long[]> values) {
        return original.inferShapes(in, values);
    }
}
