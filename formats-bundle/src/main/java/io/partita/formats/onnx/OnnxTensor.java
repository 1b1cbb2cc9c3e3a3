package io.partita.formats.onnx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import io.partita.graph.DataType;
import io.partita.graph.ElementCodec;
import io.partita.graph.Engine;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.PropertyType;
import io.partita.graph.Tensor;

/**
 * A tensor value from an ONNX file (an initializer, a {@code Constant} node, a test data set's
 * {@code input_N.pb}): data type, dims and dense row-major little-endian bytes in Partita's
 * element encoding.
 */
public record OnnxTensor(String name, DataType dataType, long[] dims, byte[] data) {

    public OnnxTensor {
        dims = dims.clone();
    }

    @Override
    public long[] dims() {
        return dims.clone();
    }

    public long elementCount() {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    /** The values as doubles (exact for every type but 64-bit integers beyond 2^53). */
    public double[] toDoubleArray() {
        MemorySegment seg = MemorySegment.ofArray(data);
        int n = Math.toIntExact(elementCount());
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = ElementCodec.get(dataType, seg, i);
        }
        return v;
    }

    /** The values of an integer tensor as longs (exact for s64). */
    public long[] toLongArray() {
        int n = Math.toIntExact(elementCount());
        long[] v = new long[n];
        if (dataType == DataType.S64) {
            MemorySegment.ofArray(data).asByteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(v);
            return v;
        }
        double[] d = toDoubleArray();
        for (int i = 0; i < n; i++) {
            v[i] = (long) d[i];
        }
        return v;
    }

    /** A dense strided logical tensor of this value's type and dims. */
    public LogicalTensor logicalTensor(long id, PropertyType property) {
        return LogicalTensor.of(id, dataType, dims, LayoutType.STRIDED, LogicalTensor.denseStrides(dims), property);
    }

    /** Copies the value into engine memory for a logical tensor of the same type and element count. */
    public Tensor toTensor(LogicalTensor lt, Engine engine, Arena arena) {
        if (lt.dataType() != dataType || lt.elementCount() != elementCount()) {
            throw new IllegalArgumentException("value '" + name + "' " + dataType + LogicalTensor.dimsToString(dims)
                    + " does not fit tensor " + lt);
        }
        Tensor t = Tensor.allocate(lt, engine, arena);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, t.data(), 0, data.length);
        return t;
    }

    /** A value with the given doubles encoded in a data type. */
    public static OnnxTensor of(String name, DataType dataType, long[] dims, double[] values) {
        long n = 1;
        for (long d : dims) {
            n = Math.multiplyExact(n, d); // an overflowing product must not match values.length by chance
        }
        if (n != values.length) {
            throw new IllegalArgumentException(values.length + " values for dims " + Arrays.toString(dims));
        }
        LogicalTensor lt = LogicalTensor.of(0, dataType, dims);
        byte[] bytes = new byte[(int) Math.max(dataType.byteSize(n), 0)];
        ElementCodec.write(lt, MemorySegment.ofArray(bytes), values);
        return new OnnxTensor(name, dataType, dims, bytes);
    }

    /** An s64 value from longs (exact). */
    public static OnnxTensor ofLongs(String name, long[] dims, long[] values) {
        byte[] bytes = new byte[values.length * 8];
        MemorySegment.ofArray(bytes).asByteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(values);
        return new OnnxTensor(name, DataType.S64, dims, bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OnnxTensor t && name.equals(t.name) && dataType == t.dataType
                && Arrays.equals(dims, t.dims) && Arrays.equals(data, t.data);
    }

    @Override
    public int hashCode() {
        return (name.hashCode() * 31 + Arrays.hashCode(dims)) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "'" + name + "' " + dataType + LogicalTensor.dimsToString(dims);
    }
}
