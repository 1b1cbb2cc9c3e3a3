package io.partita.backend.reference.kernel;

import java.util.List;

import io.partita.graph.Op;
import io.partita.graph.UnsupportedFeatureException;

/** What a reference op kernel sees: the op (defaults filled), its inputs, and its output dims. */
public final class RefContext {
    private final Op op;
    private final List<RefTensor> inputs;
    private final long[][] outputDims;
    private final RefTensor[] outputs;

    public RefContext(Op op, List<RefTensor> inputs, long[][] outputDims) {
        this.op = op;
        this.inputs = inputs;
        this.outputDims = outputDims;
        this.outputs = new RefTensor[outputDims.length];
    }

    public Op op() {
        return op;
    }

    public int inputCount() {
        return inputs.size();
    }

    public boolean hasInput(int i) {
        return i < inputs.size();
    }

    public RefTensor in(int i) {
        return inputs.get(i);
    }

    public int outputCount() {
        return outputs.length;
    }

    /** Output i, allocated (zero-filled) with its inferred dims on first access. */
    public RefTensor out(int i) {
        if (outputs[i] == null) {
            outputs[i] = RefTensor.zeros(op.output(i).dataType(), outputDims[i]);
        }
        return outputs[i];
    }

    public long[] outputDims(int i) {
        return outputDims[i].clone();
    }

    /** Replaces output i by a tensor the kernel built itself (dims must match the inferred ones). */
    public void setOut(int i, RefTensor t) {
        outputs[i] = t;
    }

    public RefTensor[] outputs() {
        return outputs;
    }

    public UnsupportedFeatureException unsupported(String what) {
        return new UnsupportedFeatureException(op.describe() + ": " + what + " is not supported by the reference backend");
    }
}
