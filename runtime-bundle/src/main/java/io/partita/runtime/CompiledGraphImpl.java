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
 * once per tensor and reused while their size suffices (dynamic shapes may grow them).
 */
final class CompiledGraphImpl implements CompiledGraph {
    private final List<Step> steps;
    private final List<LogicalTensor> inputs;
    private final List<LogicalTensor> outputs;
    private final Engine engine;
    private final Arena arena = Arena.ofShared();
    private final Map<Long, Tensor> buffers = new HashMap<>();

    CompiledGraphImpl(GraphImpl graph, List<Partition> partitions, Engine engine) {
        this.engine = engine;
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
        for (Step step : steps) {
            CompiledPartitionImpl cp = (CompiledPartitionImpl) step.compiled();
            List<Tensor> ins = new ArrayList<>();
            for (LogicalTensor t : cp.inputs()) {
                ins.add(env.get(t.id()));
            }
            List<LogicalTensor> outLts = cp.outputsFor(ins);
            List<Tensor> outs = new ArrayList<>();
            for (LogicalTensor t : outLts) {
                Tensor buf = buffer(t);
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

    private Tensor buffer(LogicalTensor lt) {
        Tensor prev = buffers.get(lt.id());
        if (prev != null && prev.logicalTensor().equals(lt)) {
            return prev;
        }
        Tensor t = prev != null && prev.data().byteSize() >= lt.memSize()
                ? Tensor.of(lt, engine, prev.data()) : Tensor.allocate(lt, engine, arena);
        buffers.put(lt.id(), t);
        return t;
    }

    @Override
    public synchronized void close() {
        buffers.clear();
        arena.close();
    }
}
