package io.partita.runtime.schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * What a {@link ShapeInferer} sees: the op (attribute defaults filled in), the current input
 * descriptions, and, where the runtime has them, the values of small integer inputs. It records
 * the inferred output dims.
 */
public final class ShapeContext {
    private final Op op;
    private final List<LogicalTensor> inputs;
    private final Map<Long, long[]> values;
    private final long[][] outputDims;
    private final boolean[] outputSet;

    public ShapeContext(Op op, List<LogicalTensor> inputs, Map<Long, long[]> values) {
        this.op = op;
        this.inputs = inputs;
        this.values = values;
        this.outputDims = new long[op.outputs().size()][];
        this.outputSet = new boolean[op.outputs().size()];
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

    public LogicalTensor input(int i) {
        return inputs.get(i);
    }

    /** Dims of input i, or null when its rank is unknown. */
    public long[] dims(int i) {
        return inputs.get(i).dims();
    }

    /** Rank of input i, or {@link LogicalTensor#UNKNOWN_NDIMS}. */
    public int rank(int i) {
        return inputs.get(i).ndims();
    }

    /** The values of input i when the runtime knows them (small integer tensors), else null. */
    public long[] values(int i) {
        return values.get(inputs.get(i).id());
    }

    /** The declared description of output i (from the graph), for ops that keep a declared shape. */
    public LogicalTensor declaredOutput(int i) {
        return op.outputs().get(i);
    }

    public int outputCount() {
        return outputDims.length;
    }

    public void setOutput(int i, long... dims) {
        outputDims[i] = dims == null ? null : dims.clone();
        outputSet[i] = true;
    }

    /** Output i has the same dims as input j. */
    public void sameAsInput(int out, int in) {
        setOutput(out, dims(in));
    }

    public boolean isOutputSet(int i) {
        return outputSet[i];
    }

    public long[] outputDims(int i) {
        return outputDims[i];
    }

    /** An error naming this op. */
    public InvalidGraphException error(String message) {
        return new InvalidGraphException(op.id(), op.describe() + ": " + message);
    }

    /** Checks that input i has the given rank (when known). */
    public void requireRank(int i, int... allowed) {
        int r = rank(i);
        if (r == LogicalTensor.UNKNOWN_NDIMS) {
            return;
        }
        for (int a : allowed) {
            if (a == r) {
                return;
            }
        }
        throw error("input " + i + " (tensor " + input(i).id() + ") has rank " + r + " "
                + LogicalTensor.dimsToString(dims(i)) + "; expected rank " + describeRanks(allowed));
    }

    /** Checks that input i has rank at least min (when known). */
    public void requireMinRank(int i, int min) {
        int r = rank(i);
        if (r != LogicalTensor.UNKNOWN_NDIMS && r < min) {
            throw error("input " + i + " (tensor " + input(i).id() + ") has rank " + r + "; expected at least " + min);
        }
    }

    private static String describeRanks(int[] allowed) {
        if (allowed.length == 1) {
            return Integer.toString(allowed[0]);
        }
        List<String> s = new ArrayList<>();
        for (int a : allowed) {
            s.add(Integer.toString(a));
        }
        return "in " + s;
    }

    /** Checks two known dims are equal. */
    public void requireEqual(long a, long b, String what) {
        if (a >= 0 && b >= 0 && a != b) {
            throw error(what + ": " + a + " != " + b);
        }
    }

    @Override
    public String toString() {
        return op.describe() + " inputs " + inputs + " outputs " + Arrays.deepToString(outputDims);
    }
}
