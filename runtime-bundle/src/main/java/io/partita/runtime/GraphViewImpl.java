package io.partita.runtime;

import java.util.List;
import java.util.Map;
import java.util.Set;

import io.partita.graph.EngineKind;
import io.partita.graph.FpMathMode;
import io.partita.graph.Op;
import io.partita.spi.GraphView;

/** What a backend sees while claiming: the finalized graph and which ops are taken. */
final class GraphViewImpl implements GraphView {
    private final GraphImpl graph;
    private final GraphImpl.Finalized f;
    private final Map<Long, Op> byId;
    private final Set<Long> claimed;

    GraphViewImpl(GraphImpl graph, GraphImpl.Finalized f, Map<Long, Op> byId, Set<Long> claimed) {
        this.graph = graph;
        this.f = f;
        this.byId = byId;
        this.claimed = claimed;
    }

    @Override
    public EngineKind engineKind() {
        return graph.engineKind();
    }

    @Override
    public FpMathMode fpMathMode() {
        return graph.fpMathMode();
    }

    @Override
    public List<Op> ops() {
        return f.ops();
    }

    @Override
    public Op op(long opId) {
        Op op = byId.get(opId);
        if (op == null) {
            throw new IllegalArgumentException("the graph has no op " + opId);
        }
        return op;
    }

    @Override
    public boolean isClaimed(long opId) {
        return claimed.contains(opId);
    }

    @Override
    public Op producer(long tensorId) {
        return f.producers().get(tensorId);
    }

    @Override
    public List<Op> consumers(long tensorId) {
        return f.consumers().getOrDefault(tensorId, List.of());
    }

    @Override
    public boolean isGraphOutput(long tensorId) {
        return f.outputIds().contains(tensorId);
    }
}
