package io.partita.runtime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.partita.graph.EngineKind;
import io.partita.graph.FpMathMode;
import io.partita.graph.Graph;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.runtime.schema.registry.ShapePropagation;

/** A graph being built, then finalized: validated, sorted and shape-inferred. */
final class GraphImpl implements Graph {
    private final RuntimeCore runtime;
    private final EngineKind engineKind;
    private final FpMathMode fpMathMode;
    private final boolean applyToInt;
    private final Map<Long, Op> added = new LinkedHashMap<>();
    /** Claims whose compile failed (backend id and op ids -> why): later partitionings leave them out. */
    private final Map<RefusedClaim, String> refused = new java.util.concurrent.ConcurrentHashMap<>();

    /** A backend's claim on exactly these ops. */
    record RefusedClaim(String backendId, Set<Long> opIds) {
        RefusedClaim {
            opIds = Set.copyOf(opIds);
        }
    }
    private volatile Finalized finalized;

    /** The state a successful finalization produces; assigned at once so a failure changes nothing. */
    record Finalized(List<Op> ops, Map<Long, Op> producers, Map<Long, List<Op>> consumers,
            List<LogicalTensor> inputs, List<LogicalTensor> outputs, Set<Long> outputIds) {
    }

    GraphImpl(RuntimeCore runtime, EngineKind engineKind, FpMathMode fpMathMode, boolean applyToInt) {
        this.runtime = runtime;
        this.engineKind = engineKind;
        this.fpMathMode = fpMathMode;
        this.applyToInt = applyToInt;
    }

    @Override
    public EngineKind engineKind() {
        return engineKind;
    }

    @Override
    public FpMathMode fpMathMode() {
        return fpMathMode;
    }

    @Override
    public boolean fpMathApplyToInt() {
        return applyToInt;
    }

    @Override
    public synchronized Graph add(Op op) {
        if (finalized != null) {
            throw new InvalidGraphException(op.id(), "cannot add " + op.describe() + ": the graph is finalized");
        }
        if (added.containsKey(op.id())) {
            throw new InvalidGraphException(op.id(), "cannot add " + op.describe() + ": the graph already has op "
                    + op.id() + " (" + added.get(op.id()).kind().spelling() + ")");
        }
        for (int i = 0; i < op.outputs().size(); i++) {
            LogicalTensor t = op.output(i);
            // An op writing such a tensor would store some elements over others: a silently wrong result.
            if (t.stridesMayAlias()) {
                throw new InvalidGraphException(op.id(), op.describe() + ": output " + i + " (" + t + ") has strides "
                        + LogicalTensor.dimsToString(t.strides()) + " that let distinct elements share memory;"
                        + " an output must give each element its own bytes");
            }
        }
        added.put(op.id(), OpSchemas.of(op).validate(op));
        return this;
    }

    @Override
    public synchronized Graph finalizeGraph() {
        if (finalized == null) {
            if (added.isEmpty()) {
                throw new InvalidGraphException("cannot finalize an empty graph");
            }
            finalized = buildFinalized(new ArrayList<>(added.values()));
        }
        return this;
    }

    private static Finalized buildFinalized(List<Op> ops) {
        Map<Long, Op> producers = new HashMap<>();
        for (Op op : ops) {
            for (LogicalTensor t : op.outputs()) {
                Op prev = producers.putIfAbsent(t.id(), op);
                if (prev != null) {
                    throw new InvalidGraphException(op.id(), "tensor " + t.id() + " is produced by both "
                            + prev.describe() + " and " + op.describe());
                }
            }
        }
        checkTensorAgreement(ops);
        List<Op> sorted = topologicalOrder(ops, producers);
        ShapePropagation.Result shapes = ShapePropagation.run(sorted, Map.of(), Map.of());
        List<Op> inferred = shapes.ops();

        Map<Long, Op> finalProducers = new HashMap<>();
        Map<Long, List<Op>> consumers = new HashMap<>();
        for (Op op : inferred) {
            op.outputs().forEach(t -> finalProducers.put(t.id(), op));
            for (LogicalTensor t : op.inputs()) {
                consumers.computeIfAbsent(t.id(), k -> new ArrayList<>()).add(op);
            }
        }
        Map<Long, LogicalTensor> inputs = new LinkedHashMap<>();
        Map<Long, LogicalTensor> outputs = new LinkedHashMap<>();
        for (Op op : inferred) {
            for (LogicalTensor t : op.inputs()) {
                if (!finalProducers.containsKey(t.id())) {
                    inputs.putIfAbsent(t.id(), t);
                }
                if (op.kind() == OpKind.End) {
                    outputs.putIfAbsent(t.id(), t);
                }
            }
            for (LogicalTensor t : op.outputs()) {
                if (!consumers.containsKey(t.id())) {
                    outputs.putIfAbsent(t.id(), t);
                }
            }
        }
        Map<Long, List<Op>> frozenConsumers = new HashMap<>();
        consumers.forEach((k, v) -> frozenConsumers.put(k, List.copyOf(v)));
        return new Finalized(List.copyOf(inferred), Map.copyOf(finalProducers), Map.copyOf(frozenConsumers),
                List.copyOf(inputs.values()), List.copyOf(outputs.values()), Set.copyOf(outputs.keySet()));
    }

    /** Every mention of a tensor id must agree on data type, rank, known dims and property. */
    private static void checkTensorAgreement(List<Op> ops) {
        Map<Long, LogicalTensor> first = new HashMap<>();
        Map<Long, Op> firstOp = new HashMap<>();
        for (Op op : ops) {
            List<LogicalTensor> all = new ArrayList<>(op.inputs());
            all.addAll(op.outputs());
            for (LogicalTensor t : all) {
                LogicalTensor f = first.putIfAbsent(t.id(), t);
                if (f == null) {
                    firstOp.put(t.id(), op);
                    continue;
                }
                String problem = disagreement(f, t);
                if (problem != null) {
                    // Described only on failure: every tensor is mentioned at least twice in a graph.
                    throw new InvalidGraphException(op.id(), "tensor " + t.id() + " is " + describe(f) + " in "
                            + firstOp.get(t.id()).describe() + " but " + describe(t) + " in " + op.describe()
                            + " (" + problem + ")");
                }
            }
        }
    }

    /** Why two mentions of a tensor disagree, or null when they agree. */
    private static String disagreement(LogicalTensor f, LogicalTensor t) {
        if (f.dataType() != t.dataType()) {
            return "data types differ";
        }
        long[] a = f.dims();
        long[] b = t.dims();
        if (a != null && b != null) {
            if (a.length != b.length) {
                return "ranks differ";
            }
            for (int k = 0; k < a.length; k++) {
                if (Dims.merge(a[k], b[k]) == null) {
                    return "dim " + k + " differs";
                }
            }
        }
        if (f.property() != t.property() && f.property() != PropertyType.UNDEF && t.property() != PropertyType.UNDEF) {
            return "properties differ";
        }
        return null;
    }

    private static String describe(LogicalTensor t) {
        return t.dataType() + " " + LogicalTensor.dimsToString(t.dims())
                + (t.property() == PropertyType.UNDEF ? "" : " " + t.property());
    }

    /** Kahn's algorithm, stable in insertion order; a leftover op means a cycle. */
    private static List<Op> topologicalOrder(List<Op> ops, Map<Long, Op> producers) {
        Map<Long, Integer> indegree = new HashMap<>();
        Map<Long, List<Op>> successors = new HashMap<>();
        for (Op op : ops) {
            Set<Long> preds = new LinkedHashSet<>();
            for (LogicalTensor t : op.inputs()) {
                Op p = producers.get(t.id());
                if (p != null) {
                    preds.add(p.id());
                }
            }
            indegree.put(op.id(), preds.size());
            for (Long p : preds) {
                successors.computeIfAbsent(p, k -> new ArrayList<>()).add(op);
            }
        }
        Deque<Op> ready = new ArrayDeque<>();
        for (Op op : ops) {
            if (indegree.get(op.id()) == 0) {
                ready.add(op);
            }
        }
        List<Op> order = new ArrayList<>(ops.size());
        while (!ready.isEmpty()) {
            Op op = ready.poll();
            order.add(op);
            for (Op s : successors.getOrDefault(op.id(), List.of())) {
                if (indegree.merge(s.id(), -1, Integer::sum) == 0) {
                    ready.add(s);
                }
            }
        }
        if (order.size() != ops.size()) {
            List<String> stuck = new ArrayList<>();
            for (Op op : ops) {
                if (indegree.get(op.id()) > 0) {
                    stuck.add(op.describe());
                }
            }
            Op firstStuck = ops.stream().filter(o -> indegree.get(o.id()) > 0).findFirst().orElseThrow();
            throw new InvalidGraphException(firstStuck.id(), "the graph has a cycle through " + stuck);
        }
        return order;
    }

    @Override
    public boolean isFinalized() {
        return finalized != null;
    }

    Finalized requireFinalized(String what) {
        Finalized f = finalized;
        if (f == null) {
            throw new InvalidGraphException(what + " needs a finalized graph; call finalizeGraph() first");
        }
        return f;
    }

    @Override
    public List<Op> ops() {
        Finalized f = finalized;
        return f != null ? f.ops() : List.copyOf(added.values());
    }

    @Override
    public List<LogicalTensor> inputs() {
        return requireFinalized("inputs()").inputs();
    }

    @Override
    public List<LogicalTensor> outputs() {
        return requireFinalized("outputs()").outputs();
    }

    @Override
    public List<Partition> partitions(PartitionPolicy policy) {
        Finalized f = requireFinalized("partitions()");
        return Collections.unmodifiableList(new Partitioner(runtime, this, f).partition(policy));
    }

    RuntimeCore runtime() {
        return runtime;
    }

    /**
     * Remembers that the backend could not compile its claim on these ops, so that partitioning this
     * graph again gives them to the other backends (the reference backend last).
     */
    void refuseClaim(String backendId, java.util.Collection<Long> opIds, String why) {
        refused.put(new RefusedClaim(backendId, Set.copyOf(opIds)), why);
    }

    /** Why the backend's claim on these ops was refused, or null. */
    String refusal(String backendId, Set<Long> opIds) {
        return refused.isEmpty() ? null : refused.get(new RefusedClaim(backendId, opIds));
    }

    @Override
    public String toString() {
        return "Graph[" + engineKind + ", " + added.size() + " ops" + (finalized != null ? ", finalized" : "") + "]";
    }
}
