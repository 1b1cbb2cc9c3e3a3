package io.partita.backend.dnnl.internal.primitive;

import java.lang.foreign.MemorySegment;
import java.util.List;

import io.partita.spi.CpuTeam;
import io.partita.cache.BufferProducer;
import io.partita.cache.Lease;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Tensor;

/** One execution of a primitive: its tensors (partition port order), the thread pool, the constant cache. */
public final class Invocation {
    private final List<Tensor> inputs;
    private final List<Tensor> outputs;
    private final CpuTeam pool;
    private final Constants constants;

    /** Processed constant inputs, from the unified cache. */
    public interface Constants {
        /**
         * The processed form of constant inputs (one, or several combined, e.g. weights with a
         * folded BatchNorm), produced once per (kernel, tensors, data) and then shared; null when an
         * input is not constant (process them per execution then).
         */
        Lease get(int[] inputs, String form, long byteSize, BufferProducer producer);
    }

    public Invocation(List<Tensor> inputs, List<Tensor> outputs, CpuTeam pool, Constants constants) {
        this.inputs = inputs;
        this.outputs = outputs;
        this.pool = pool;
        this.constants = constants;
    }

    /**
     * This execution over other tensors, with the same pool and constant cache: a primitive running
     * another on converted operands (constants are still keyed by this execution's inputs).
     */
    public Invocation with(List<Tensor> otherInputs, List<Tensor> otherOutputs) {
        return new Invocation(otherInputs, otherOutputs, pool, constants);
    }

    public Tensor input(int i) {
        return inputs.get(i);
    }

    public Tensor output(int i) {
        return outputs.get(i);
    }

    public MemorySegment in(int i) {
        return inputs.get(i).data();
    }

    public LogicalTensor inLt(int i) {
        return inputs.get(i).logicalTensor();
    }

    public MemorySegment out(int i) {
        return outputs.get(i).data();
    }

    public LogicalTensor outLt(int i) {
        return outputs.get(i).logicalTensor();
    }

    public int inputCount() {
        return inputs.size();
    }

    /** The pool, or null when the tensors may only be touched by the calling thread. */
    public CpuTeam pool() {
        return pool;
    }

    public Lease constant(int input, String form, long byteSize, BufferProducer producer) {
        return constants.get(new int[] {input}, form, byteSize, producer);
    }

    /** A buffer made from several constant inputs together; null unless every one is constant. */
    public Lease constant(int[] inputs, String form, long byteSize, BufferProducer producer) {
        return constants.get(inputs.clone(), form, byteSize, producer);
    }

    /** Operand segments for a post-op chain: input indices to segments. */
    public MemorySegment[] operands(int[] inputIndices) {
        MemorySegment[] s = new MemorySegment[inputIndices.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = in(inputIndices[i]);
        }
        return s;
    }
}
