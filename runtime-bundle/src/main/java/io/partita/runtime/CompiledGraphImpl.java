package io.partita.runtime;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.partita.cache.CaptureMemo;
import io.partita.graph.BackendUnavailableException;
import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.PartitaException;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.StepObserver;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.spi.Kernel;

/**
 * A whole graph compiled partition by partition. Graph outputs (and constant intermediates) get a
 * buffer per tensor, reused while its size suffices (dynamic shapes may grow it); the other
 * intermediates share blocks by lifetime ({@link SharedBuffers}). Buffers stay allocated until
 * {@link #close}; one per partition output is reserved against the runtime's memory budget at
 * compile time, all at once (an upper bound), and growing past the reservation reserves the difference.
 *
 * <p>The execution plan is memoized per capture set (each graph input's memory by identity, weakly
 * referenced, with its shape, strides, type and engine, and the values of small integer inputs
 * that may carry shapes; see {@link CaptureMemo}): the partitions' output shapes, the intermediate
 * buffers chosen and every partition's bound argument lists. A call with the same capture set
 * replays the plan (each partition's kernel called with the recorded arguments, after the check
 * that its backend is still there) and skips the port checks, shape inference and buffer lookup.
 * Calls are serialized, so a plan in use is never handed to a second thread. A graph where a shape
 * is computed from an intermediate value is not memoized. {@code -Dpartita.memo=false} or
 * {@code CaptureMemo.setEnabled(false)} plans every call.
 */
final class CompiledGraphImpl implements CompiledGraph {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CompiledGraphImpl.class);
    /** Claims one compilation may refuse before giving up (each refusal re-partitions the graph). */
    private static final int MAX_REFUSALS = 16;
    /** Re-partitionings one call may do when backends keep going away under it. */
    private static final int MAX_RECOMPILES = 8;
    private final GraphImpl graph;
    private final PartitionPolicy policy;
    private volatile List<Step> steps;
    private final List<LogicalTensor> inputs;
    private final List<LogicalTensor> outputs;
    private final Engine engine;
    private final Arena arena = Arena.ofShared();
    /** Graph outputs' and constant intermediates' buffers, one per tensor id. */
    private final Map<Long, Tensor> buffers = new HashMap<>();
    /** The other intermediates, in blocks shared by tensors whose lifetimes do not overlap. */
    private final SharedBuffers shared = new SharedBuffers(arena);
    private final MemoryBudget budget;
    /** Bytes reserved in {@link #budget} (released on close), and the bytes of the arena's buffers. */
    private long reserved;
    private long allocated;
    private boolean closed;
    /** Replaced when the graph is compiled again (the recorded plans name the old partitions). */
    private CaptureMemo<Plan> memo = newMemo();
    /** Set once a recording found a shape computed from an intermediate value: never memoized. */
    private boolean valueDependent;

    /**
     * One recorded call: per partition its arguments, where a null input is graph input
     * {@code inputSlots[s][i]}; per graph output the tensor, or null for graph input {@code resultSlots[o]}.
     */
    static final class Plan {
        final List<CompiledPartitionImpl> partitions = new ArrayList<>();
        final List<Tensor[]> ins = new ArrayList<>();
        final List<int[]> inputSlots = new ArrayList<>();
        final List<List<Tensor>> outs = new ArrayList<>();
        long[] resultIds;
        Tensor[] results;
        int[] resultSlots;
        /** The distinct backends of the partitions, entered once per replay (not once per partition). */
        BackendHandle[] handles;
        /**
         * Per partition, its kernel's prepared call when every tensor it touches is the plan's own
         * (the static body, bound once); null for partitions reading a caller's input (the per-call head).
         */
        Kernel.Call[] calls;
    }

    CompiledGraphImpl(GraphImpl graph, PartitionPolicy policy, Engine engine, MemoryBudget budget) {
        this.graph = graph;
        this.policy = policy;
        List<Partition> partitions = graph.partitions(policy);
        this.engine = engine;
        this.budget = budget;
        // Reserved before any backend compiles: one buffer per partition output, by id, beside the
        // graph's inputs (the caller's). A backend's own checks (the reference backend's heap) come after.
        Map<Long, LogicalTensor> planned = new LinkedHashMap<>();
        for (Partition p : partitions) {
            p.outputs().forEach(t -> planned.putIfAbsent(t.id(), t));
        }
        this.reserved = budget.reserve("the compiled graph", graph.inputs(), planned.values());
        try {
            Map<Long, LogicalTensor> known = new HashMap<>();
            for (LogicalTensor t : graph.inputs()) {
                known.put(t.id(), t);
            }
            this.steps = compileAll(partitions, known, engine);
            this.inputs = graph.inputs();
            List<LogicalTensor> outs = new ArrayList<>();
            for (LogicalTensor t : graph.outputs()) {
                outs.add(known.getOrDefault(t.id(), t));
            }
            this.outputs = List.copyOf(outs);
        } catch (RuntimeException | Error e) {
            budget.release(reserved);
            throw e;
        }
    }

    private static CaptureMemo<Plan> newMemo() {
        return new CaptureMemo<>(CaptureMemo.defaultCapacity(), p -> {
        });
    }

    /**
     * Compiles the partitions in order. A backend that cannot compile its claim (an unsupported
     * feature, generated code the JVM rejected, an OpenCL build error: any failure that is not the
     * caller's input or the memory limit) has that claim refused for this graph, and the graph is
     * partitioned again, so its ops go to the other backends, the reference backend last.
     */
    private List<Step> compileAll(List<Partition> partitions, Map<Long, LogicalTensor> known, Engine engine) {
        PartitaException first = null; // the failure that started the fallback: what to report if it leads nowhere
        for (int refusals = 0;; refusals++) {
            Map<Long, LogicalTensor> k = new HashMap<>(known);
            List<Step> s = new ArrayList<>(partitions.size());
            Partition failed = null;
            PartitaException why = null;
            for (Partition p : partitions) {
                List<LogicalTensor> ins = new ArrayList<>();
                for (LogicalTensor t : p.inputs()) {
                    ins.add(k.getOrDefault(t.id(), t));
                }
                CompiledPartition cp;
                try {
                    cp = p.compile(ins, p.outputs(), engine);
                } catch (PartitaException e) {
                    if (!backendFailure(p, e) || refusals == MAX_REFUSALS) {
                        if (first != null) {
                            first.addSuppressed(e);
                            throw first;
                        }
                        throw e;
                    }
                    failed = p;
                    why = e;
                    break;
                }
                cp.outputs().forEach(t -> k.put(t.id(), t));
                s.add(new Step(p, cp));
            }
            if (failed == null) {
                known.putAll(k);
                return List.copyOf(s);
            }
            LOG.warn("backend {} could not compile partition {} ({}, ops {}): {}; its ops go to the other backends",
                    failed.backendId(), failed.id(), failed.pattern(), failed.ops().stream().map(Op::id).toList(),
                    why.getMessage());
            graph.refuseClaim(failed.backendId(), failed.ops().stream().map(Op::id).toList(), why.getMessage());
            if (first == null) {
                first = why;
            }
            try {
                partitions = graph.partitions(policy);
            } catch (PartitaException e) {
                first.addSuppressed(e);
                throw first;
            }
        }
    }

    /** A failure of the backend itself (not the caller's input, the memory limit or a backend that left). */
    private boolean backendFailure(Partition p, PartitaException e) {
        return !(e instanceof InvalidArgumentException || e instanceof io.partita.graph.InvalidGraphException
                || e instanceof io.partita.graph.MemoryLimitException || e instanceof BackendUnavailableException)
                && !p.backendId().equals(graph.runtime().fallbackFor(graph.engineKind()).id());
    }

    /**
     * A backend of a partition went away: partitions the graph again over the backends present now
     * and compiles it (the buffers stay; one a new partitioning needs more of reserves the difference).
     */
    private void recompile() {
        Map<Long, LogicalTensor> known = new HashMap<>();
        for (LogicalTensor t : inputs) {
            known.put(t.id(), t);
        }
        steps = compileAll(graph.partitions(policy), known, engine);
        memo.close();
        memo = newMemo();
        valueDependent = false;
    }

    @Override
    public List<Step> steps() {
        return steps;
    }

    @Override
    public List<LogicalTensor> inputs() {
        return inputs;
    }

    @Override
    public List<LogicalTensor> outputs() {
        return outputs;
    }

    /**
     * Runs the graph. When the backend of a partition has gone (bundle stopped, updated or disabled),
     * the graph is partitioned and compiled again over the backends present now and the call runs
     * again from the start (its inputs are unchanged): callers never see that backend's
     * {@link io.partita.graph.BackendUnavailableException} unless backends keep going away through
     * {@value #MAX_RECOMPILES} re-partitionings of one call.
     */
    @Override
    public Map<Long, Tensor> execute(Stream stream, Map<Long, Tensor> given) {
        return execute(stream, given, null);
    }

    @Override
    public synchronized Map<Long, Tensor> execute(Stream stream, Map<Long, Tensor> given, StepObserver observer) {
        if (closed) {
            throw new IllegalStateException("the compiled graph is closed");
        }
        for (int attempt = 0;; attempt++) {
            try {
                return executeOnce(stream, given, observer);
            } catch (BackendUnavailableException e) {
                if (attempt == MAX_RECOMPILES) {
                    throw e;
                }
                recompileAfter(e, attempt);
            }
        }
    }

    private void recompileAfter(BackendUnavailableException gone, int attempt) {
        for (;; attempt++) {
            try {
                recompile();
                return;
            } catch (BackendUnavailableException e) {
                if (attempt >= MAX_RECOMPILES) {
                    e.addSuppressed(gone);
                    throw e;
                }
            }
        }
    }

    /**
     * Each thread's capture, reused from call to call: a graph whose weights are inputs captures
     * thousands of values per call (ResNet-50: 268 tensors), which allocated about 128 KB per
     * execution in steady state. Empty while a call uses it, so a nested execution makes its own.
     */
    private static final ThreadLocal<CaptureMemo.Capture> CAPTURES = new ThreadLocal<>();

    private Map<Long, Tensor> executeOnce(Stream stream, Map<Long, Tensor> given, StepObserver observer) {
        if (!CaptureMemo.enabled() || valueDependent || given.size() != inputs.size()) {
            return plan(stream, given, null, observer);
        }
        CaptureMemo.Capture c = CAPTURES.get();
        if (c == null) {
            c = new CaptureMemo.Capture();
        } else {
            CAPTURES.set(null);
        }
        try {
            return executeCaptured(c, stream, given, observer);
        } finally {
            CAPTURES.set(c.clear());
        }
    }

    private Map<Long, Tensor> executeCaptured(CaptureMemo.Capture c, Stream stream, Map<Long, Tensor> given,
            StepObserver observer) {
        Tensor[] args = new Tensor[inputs.size()];
        for (int i = 0; i < args.length; i++) {
            Tensor v = given.get(inputs.get(i).id());
            if (v == null) {
                return plan(stream, given, null, observer); // reports the missing input
            }
            args[i] = v;
            capture(c, v);
        }
        Object[] recorded = new Object[1];
        try (CaptureMemo.Entry<Plan> e = memo.acquire(c, () -> {
            Plan p = new Plan();
            recorded[0] = plan(stream, given, p, observer);
            return p;
        })) {
            if (e.recorded()) {
                @SuppressWarnings("unchecked")
                Map<Long, Tensor> r = (Map<Long, Tensor>) recorded[0];
                return r;
            }
            return replay(e.value(), stream, args, observer);
        }
    }

    /** What a plan depends on in one graph input: memory, shape, strides, type, engine, shape values. */
    private static void capture(CaptureMemo.Capture c, Tensor t) {
        LogicalTensor lt = t.logicalTensor();
        c.memory(t.data());
        // element by element: the arrays' accessors copy, which allocated on every call
        int rank = lt.ndims();
        c.value(rank);
        for (int i = 0; i < rank; i++) {
            c.value(lt.dim(i));
        }
        boolean strided = lt.layoutType() == LayoutType.STRIDED;
        c.value(strided ? rank : -1);
        for (int i = 0; strided && i < rank; i++) {
            c.value(lt.stride(i));
        }
        c.value(lt.dataType().ordinal())
                .value(lt.layoutType().ordinal()).value(lt.layoutId()).value(lt.property().ordinal())
                .value(t.engine().kind().ordinal()).value(t.engine().index());
        if (CompiledPartitionImpl.isShapeCandidate(t)) {
            c.values(CompiledPartitionImpl.readLongs(t));
        }
    }

    private Map<Long, Tensor> replay(Plan p, Stream stream, Tensor[] args, StepObserver observer) {
        if (p.handles == null) {
            p.handles = p.partitions.stream().map(CompiledPartitionImpl::handle).distinct()
                    .toArray(BackendHandle[]::new);
        }
        // Each backend is entered once for the whole call: one that goes meanwhile drops its
        // cached constants only after the call, and a gone one fails the call before it starts.
        BackendHandle[] handles = p.handles;
        int entered = 0;
        try {
            for (BackendHandle h : handles) {
                if (!h.enter()) {
                    throw new BackendUnavailableException(h.id(), "backend " + h.id()
                            + " that compiled partitions of this graph is gone (bundle stopped, updated or disabled)");
                }
                entered++;
            }
            if (p.calls == null) {
                p.calls = prepare(p); // backend code: only while every backend is entered
            }
            Kernel.Call[] calls = p.calls;
            for (int s = 0; s < calls.length; s++) {
                long t0 = observer == null ? 0 : System.nanoTime();
                if (calls[s] != null) {
                    calls[s].run(stream);
                } else {
                    replayStep(p, s, stream, args);
                }
                if (observer != null) {
                    observer.stepDone(s, System.nanoTime() - t0);
                }
            }
        } finally {
            for (int i = 0; i < entered; i++) {
                handles[i].leave();
            }
        }
        Map<Long, Tensor> result = new LinkedHashMap<>();
        for (int o = 0; o < p.resultIds.length; o++) {
            result.put(p.resultIds[o], p.results[o] != null ? p.results[o] : args[p.resultSlots[o]]);
        }
        return result;
    }

    private static Kernel.Call[] prepare(Plan p) {
        Kernel.Call[] calls = new Kernel.Call[p.partitions.size()];
        for (int s = 0; s < calls.length; s++) {
            List<Tensor> ins = java.util.Arrays.asList(p.ins.get(s));
            if (!ins.contains(null)) {
                calls[s] = p.partitions.get(s).prepareEntered(ins, p.outs.get(s));
            }
        }
        return calls;
    }

    /** Plans and runs one call; with {@code record} non-null, records the plan into it. */
    private Map<Long, Tensor> plan(Stream stream, Map<Long, Tensor> given, Plan record, StepObserver observer) {
        Map<Long, Tensor> env = new HashMap<>();
        for (LogicalTensor t : inputs) {
            Tensor v = given.get(t.id());
            if (v == null) {
                throw new InvalidArgumentException("graph input tensor " + t.id() + " (" + t + ") was not given");
            }
            env.put(t.id(), v);
        }
        for (Long id : given.keySet()) {
            if (!env.containsKey(id)) {
                throw new InvalidArgumentException("tensor " + id + " is not a graph input; inputs are "
                        + inputs.stream().map(LogicalTensor::id).toList());
            }
        }
        Map<Long, Integer> inputSlot = new HashMap<>();
        for (int i = 0; i < inputs.size(); i++) {
            inputSlot.put(inputs.get(i).id(), i);
        }
        long inputBytes = 0;
        for (Tensor t : given.values()) {
            inputBytes = MemoryBudget.add(inputBytes, t.data().byteSize());
        }
        List<Step> current = steps;
        Map<Long, Integer> lastUse = lastUses(current);
        Set<Long> inShared = new HashSet<>();
        shared.reset();
        for (int si = 0; si < current.size(); si++) {
            CompiledPartitionImpl cp = (CompiledPartitionImpl) current.get(si).compiled();
            List<Tensor> ins = new ArrayList<>();
            for (LogicalTensor t : cp.inputs()) {
                ins.add(env.get(t.id()));
            }
            List<LogicalTensor> outLts = cp.outputsFor(ins);
            List<Tensor> outs = new ArrayList<>();
            for (LogicalTensor t : outLts) {
                boolean share = lastUse.getOrDefault(t.id(), si) != Integer.MAX_VALUE
                        && t.property() != PropertyType.CONSTANT;
                Tensor buf = share ? sharedBuffer(t, inputBytes) : buffer(t, inputBytes);
                if (share) {
                    inShared.add(t.id());
                }
                outs.add(buf);
                env.put(t.id(), buf);
            }
            long t0 = observer == null ? 0 : System.nanoTime();
            cp.execute(stream, ins, outs);
            if (observer != null) {
                observer.stepDone(si, System.nanoTime() - t0);
            }
            // Blocks of tensors no later partition reads go back (after the partition ran: never to its own outputs).
            for (LogicalTensor t : cp.inputs()) {
                if (lastUse.get(t.id()) == si && inShared.remove(t.id())) {
                    shared.release(env.get(t.id()));
                }
            }
            for (LogicalTensor t : outLts) {
                if (!lastUse.containsKey(t.id()) && inShared.remove(t.id())) {
                    shared.release(env.get(t.id()));
                }
            }
            if (record != null) {
                Tensor[] template = new Tensor[ins.size()];
                int[] slots = new int[ins.size()];
                for (int i = 0; i < template.length; i++) {
                    long id = cp.inputs().get(i).id();
                    Integer slot = inputSlot.get(id);
                    if (slot != null) {
                        slots[i] = slot; // the caller's tensor: never kept by the plan
                    } else {
                        template[i] = ins.get(i);
                        if (cp.dynamic() && CompiledPartitionImpl.isShapeCandidate(ins.get(i))) {
                            valueDependent = true; // a shape computed on the way: plan every call
                        }
                    }
                }
                record.partitions.add(cp);
                record.ins.add(template);
                record.inputSlots.add(slots);
                record.outs.add(List.copyOf(outs));
            }
        }
        Map<Long, Tensor> result = new LinkedHashMap<>();
        for (LogicalTensor t : outputs) {
            Tensor v = env.get(t.id());
            if (v != null) {
                result.put(t.id(), v);
            }
        }
        if (record != null) {
            int n = result.size();
            record.resultIds = new long[n];
            record.results = new Tensor[n];
            record.resultSlots = new int[n];
            int o = 0;
            for (Map.Entry<Long, Tensor> e : result.entrySet()) {
                record.resultIds[o] = e.getKey();
                Integer slot = inputSlot.get(e.getKey());
                if (slot != null) {
                    record.resultSlots[o] = slot;
                } else {
                    record.results[o] = e.getValue();
                }
                o++;
            }
        }
        return result;
    }

    /** Step s of a plan whose call could not be prepared: the caller's tensors put into its template. */
    private static void replayStep(Plan p, int s, Stream stream, Tensor[] args) {
        Tensor[] template = p.ins.get(s);
        int[] slots = p.inputSlots.get(s);
        Tensor[] ins = new Tensor[template.length];
        for (int i = 0; i < ins.length; i++) {
            ins[i] = template[i] != null ? template[i] : args[slots[i]];
        }
        p.partitions.get(s).executeEntered(stream, java.util.Arrays.asList(ins), p.outs.get(s));
    }

    /** Blocks the shared intermediates take (for tests). */
    synchronized int sharedBlocks() {
        return shared.count();
    }

    /** Plans memoized for this graph (for tests). */
    synchronized CaptureMemo<Plan> memo() {
        return memo;
    }

    /**
     * For each tensor partitions read: the index of the last step reading it; graph outputs
     * {@link Integer#MAX_VALUE} (they outlive the call). Tensors nothing reads are absent.
     */
    private Map<Long, Integer> lastUses(List<Step> current) {
        Map<Long, Integer> last = new HashMap<>();
        for (int si = 0; si < current.size(); si++) {
            for (LogicalTensor t : current.get(si).compiled().inputs()) {
                last.put(t.id(), si);
            }
        }
        for (LogicalTensor t : outputs) {
            last.put(t.id(), Integer.MAX_VALUE);
        }
        return last;
    }

    private Tensor sharedBuffer(LogicalTensor lt, long inputBytes) {
        long growth = shared.growthFor(lt);
        if (growth > 0) {
            long after = MemoryBudget.add(allocated, growth);
            if (after > reserved) {
                budget.reserveBuffer(lt, after - reserved, inputBytes);
                reserved = after;
            }
            allocated = after;
        }
        return shared.take(lt, engine);
    }

    private Tensor buffer(LogicalTensor lt, long inputBytes) {
        Tensor prev = buffers.get(lt.id());
        if (prev != null && prev.logicalTensor().equals(lt)) {
            return prev;
        }
        Tensor t;
        if (prev != null && prev.data().byteSize() >= lt.memSize()) {
            t = Tensor.of(lt, engine, prev.data());
        } else {
            // The arena frees nothing before close: a replaced buffer still counts.
            long size = Math.max(lt.memSize(), 1);
            long after = MemoryBudget.add(allocated, size);
            if (after > reserved) {
                budget.reserveBuffer(lt, after - reserved, inputBytes);
                reserved = after;
            }
            t = Tensor.allocate(lt, engine, arena);
            allocated = after;
        }
        buffers.put(lt.id(), t);
        return t;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        memo.close();
        buffers.clear();
        shared.clear();
        arena.close();
        budget.release(reserved);
        reserved = 0;
    }
}
