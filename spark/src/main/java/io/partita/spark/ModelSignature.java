package io.partita.spark;

import java.io.Serializable;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;

/**
 * The runtime inputs and outputs of a loaded model as the transformer sees them: named ports whose
 * first dim is the batch (rows) and whose other dims are one row's shape. The driver computes it to
 * check the schema before any task runs; executors compute the same from the same bytes.
 *
 * @param inputs runtime (non-constant) inputs by name, in the model's order
 * @param outputs outputs by name, in the model's order
 * @param batch the rows of one execution: the graph's static batch dim, or {@link #DYNAMIC} when
 *     every input leaves it open ({@code DYNAMIC_DIM}; each batch runs with its own row count)
 */
public record ModelSignature(Map<String, Port> inputs, Map<String, Port> outputs, long batch) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** {@link #batch} of a model that runs any number of rows. */
    public static final long DYNAMIC = -1;

    public ModelSignature {
        inputs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
        outputs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
    }

    /**
     * One input or output.
     *
     * @param name ONNX name, or the tensor id in decimal for graph JSON (which names no tensors)
     * @param id the graph's tensor id
     * @param dataType element type
     * @param dims all dims, the batch first ({@link LogicalTensor#DYNAMIC_DIM} where open)
     */
    public record Port(String name, long id, DataType dataType, long[] dims) implements Serializable {
        private static final long serialVersionUID = 1L;

        /** One row's dims: all but the batch dim. */
        public long[] rowDims() {
            return Arrays.copyOfRange(dims, 1, dims.length);
        }

        /** Elements of one row (known once the row dims are static). */
        public int rowElements() {
            long n = 1;
            for (long d : rowDims()) {
                n *= d;
            }
            return Math.toIntExact(n);
        }

        /** How messages show one row's shape, e.g. {@code f32 [28, 28]}. */
        public String rowShape() {
            return dataType + " " + Arrays.toString(rowDims());
        }

        boolean rowIsStatic() {
            for (long d : rowDims()) {
                if (d < 0) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Builds the signature of a finalized graph's ports, checking they have a batch dim. */
    static ModelSignature of(String source, Map<String, LogicalTensor> inputs, Map<String, LogicalTensor> outputs) {
        Map<String, Port> in = new LinkedHashMap<>();
        Map<String, Port> out = new LinkedHashMap<>();
        long batch = 0;
        for (Map.Entry<String, LogicalTensor> e : inputs.entrySet()) {
            Port p = port(source, "input", e.getKey(), e.getValue());
            long b = p.dims()[0];
            if (!p.rowIsStatic()) {
                throw new IllegalArgumentException(source + ": input '" + p.name() + "' " + LogicalTensor.dimsToString(p.dims())
                        + " has an open dim other than the first (the batch): only the batch dim may be dynamic");
            }
            long mine = b == LogicalTensor.DYNAMIC_DIM ? DYNAMIC : b;
            if (batch != 0 && mine != batch) {
                throw new IllegalArgumentException(source + ": the inputs disagree on the batch dim (first dim): "
                        + describe(inputs));
            }
            batch = mine;
            in.put(p.name(), p);
        }
        if (in.isEmpty()) {
            throw new IllegalArgumentException(source + ": the model has no runtime inputs to feed rows into");
        }
        for (Map.Entry<String, LogicalTensor> e : outputs.entrySet()) {
            out.put(e.getKey(), port(source, "output", e.getKey(), e.getValue()));
        }
        return new ModelSignature(in, out, batch);
    }

    private static Port port(String source, String what, String name, LogicalTensor t) {
        if (t.ndims() < 1) {
            throw new IllegalArgumentException(source + ": " + what + " '" + name + "' is a scalar (rank 0); rows need a"
                    + " first (batch) dim");
        }
        return new Port(name, t.id(), t.dataType(), t.dims());
    }

    private static String describe(Map<String, LogicalTensor> ports) {
        StringBuilder b = new StringBuilder();
        ports.forEach((n, t) -> b.append(b.isEmpty() ? "" : ", ").append(n).append(' ').append(LogicalTensor.dimsToString(t.dims())));
        return b.toString();
    }

    /** The names for messages, e.g. {@code [input, mask]}. */
    static String names(Map<String, Port> ports) {
        return List.copyOf(ports.keySet()).toString();
    }
}
