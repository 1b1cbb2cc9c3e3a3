package io.partita.backend.reference.kernel;

import java.util.Arrays;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;

/**
 * A tensor inside the reference backend: dims, data type, and every element as a double in
 * logical row-major order. Simple on purpose: the reference is the oracle, not the fast path.
 */
public final class RefTensor {
    private final long[] dims;
    private final long[] strides;
    private final DataType type;
    private final double[] data;

    public RefTensor(DataType type, long[] dims, double[] data) {
        this.type = type;
        this.dims = dims.clone();
        this.strides = LogicalTensor.denseStrides(this.dims);
        long n = count(this.dims);
        if (data.length != n) {
            throw new IllegalArgumentException("data has " + data.length + " elements, dims " + Arrays.toString(dims)
                    + " need " + n);
        }
        this.data = data;
    }

    /**
     * A zero-filled tensor.
     *
     * @throws io.partita.graph.MemoryLimitException when it has more elements than a Java array holds
     */
    public static RefTensor zeros(DataType type, long... dims) {
        long n = RefMemory.elements(dims);
        RefMemory.checkArray("a reference tensor " + type + LogicalTensor.dimsToString(dims), n);
        return new RefTensor(type, dims, new double[(int) n]);
    }

    public static long count(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    public DataType type() {
        return type;
    }

    /** The dims (do not modify). */
    public long[] dims() {
        return dims;
    }

    public int rank() {
        return dims.length;
    }

    public long dim(int i) {
        return dims[i];
    }

    /** Dense row-major strides in elements (do not modify). */
    public long[] strides() {
        return strides;
    }

    /** The elements (mutable, shared). */
    public double[] data() {
        return data;
    }

    public int size() {
        return data.length;
    }

    /** Element at a multi-index. */
    public double get(long... idx) {
        return data[(int) offset(idx)];
    }

    public void set(double v, long... idx) {
        data[(int) offset(idx)] = v;
    }

    public long offset(long[] idx) {
        long off = 0;
        for (int i = 0; i < idx.length; i++) {
            off += idx[i] * strides[i];
        }
        return off;
    }

    /** Unravels a flat row-major index into {@code idx}. */
    public void unravel(long flat, long[] idx) {
        for (int i = dims.length - 1; i >= 0; i--) {
            idx[i] = flat % dims[i];
            flat /= dims[i];
        }
    }

    /** The elements as longs (for shape, order and index tensors). */
    public long[] toLongs() {
        long[] v = new long[data.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = (long) data[i];
        }
        return v;
    }

    @Override
    public String toString() {
        return "RefTensor[" + type + " " + Arrays.toString(dims) + "]";
    }
}
