package io.partita.runtime;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Partition;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * A whole graph compiled partition by partition. Intermediate and output buffers are allocated
 * once per tensor and reused while their size suffices (dynamic shapes may grow them). They stay
 * allocated until {@link #close}, so they are reserved against the runtime's memory budget at
 * compile time, all at once, and a buffer growing past the reservation reserves the difference.
 */
final class CompiledGraphImpl implements CompiledGraph {
    private final List<Step> steps;
    private final List<LogicalTensor> inputs;
    private final List<LogicalTensor> outputs;
    private final Engine engine;
    private final Arena arena = Arena.ofShared();
    private final Map<Long, Tensor> buffers = new HashMap<>();
    private final MemoryBudget budget;
    /** Bytes reserved in {@link #budget} (released on close), and the bytes of the arena's buffers. */
    private long reserved;
    private long allocated;
    private boolean closed;

    CompiledGraphImpl(GraphImpl graph, List<Partition> partitions, Engine engine, MemoryBudget budget) {
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
            List<Step> s = new ArrayList<>(partitions.size());
            for (Partition p : partitions) {
                List<LogicalTensor> ins = new ArrayList<>();
                for (LogicalTensor t : p.inputs()) {
                    ins.add(known.getOrDefault(t.id(), t));
                }
                CompiledPartition cp = p.compile(ins, p.outputs(), engine);
                cp.outputs().forEach(t -> known.put(t.id(), t));
                s.add(new Step(p, cp));
            }
            this.steps = List.copyOf(s);
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

    @Override
    public synchronized Map<Long, Tensor> execute(Stream stream, Map<Long, Tensor> given) {
        if (closed) {
            throw new IllegalStateException("the compiled graph is closed");
        }
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
        long inputBytes = 0;
        for (Tensor t : given.values()) {
            inputBytes = MemoryBudget.add(inputBytes, t.data().byteSize());
        }
        for (Step step : steps) {
            CompiledPartitionImpl cp = (CompiledPartitionImpl) step.compiled();
            List<Tensor> ins = new ArrayList<>();
            for (LogicalTensor t : cp.inputs()) {
                ins.add(env.get(t.id()));
            }
            List<LogicalTensor> outLts = cp.outputsFor(ins);
            List<Tensor> outs = new ArrayList<>();
            for (LogicalTensor t : outLts) {
                Tensor buf = buffer(t, inputBytes);
                outs.add(buf);
                env.put(t.id(), buf);
            }
            cp.execute(stream, ins, outs);
        }
        Map<Long, Tensor> result = new LinkedHashMap<>();
        for (LogicalTensor t : outputs) {
            Tensor v = env.get(t.id());
            if (v != null) {
                result.put(t.id(), v);
            }
        }
        return result;
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
        buffers.clear();
        arena.close();
        budget.release(reserved);
        reserved = 0;
    }
}
