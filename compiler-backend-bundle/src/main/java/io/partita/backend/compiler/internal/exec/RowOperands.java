package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;

/**
 * The partition inputs a fused row expression reads: staged rows (broadcast to the fused dims,
 * numpy rules) numbered from a first source slot, and single elements passed as per-call scalars.
 * Dims and strides are taken from the tensors at every execution, so one compilation serves
 * every shape.
 */
final class RowOperands {
    private final CompileRequest request;
    private final int firstSource;
    private final List<Integer> rows = new ArrayList<>();
    private final List<Integer> scalars = new ArrayList<>();

    RowOperands(CompileRequest request, int firstSource) {
        this.request = request;
        this.firstSource = firstSource;
    }

    /** The expression leaf for a tensor computed outside the chain (a partition input). */
    int leaf(ExprBuilder b, LogicalTensor t) {
        int leaf;
        long[] d = t.dims();
        if (d != null && Arrays.stream(d).allMatch(x -> x == 1)) {
            scalars.add(port(request, t));
            leaf = b.scalar();
        } else {
            rows.add(port(request, t));
            leaf = b.source();
        }
        b.bind(t.id(), leaf);
        return leaf;
    }

    /** A staged row that is no expression leaf (a normalisation's src read directly). */
    void row(LogicalTensor t) {
        rows.add(port(request, t));
    }

    /**
     * The dims of rank {@code rank} every operand broadcasts to (numpy rules): the dims of the
     * chain's result when it is computed from these operands alone.
     */
    long[] broadcastDims(List<Tensor> in, int rank) {
        long[] r = new long[rank];
        Arrays.fill(r, 1);
        List<Integer> all = new ArrayList<>(rows);
        all.addAll(scalars);
        for (int port : all) {
            long[] d = in.get(port).logicalTensor().dims();
            if (d.length > rank) {
                throw new UnsupportedFeatureException("partition " + request.partitionId() + ": operand "
                        + LogicalTensor.dimsToString(d) + " has more than " + rank + " dims");
            }
            for (int i = 0; i < d.length; i++) {
                int j = i + rank - d.length;
                if (d[i] != 1) {
                    if (r[j] != 1 && r[j] != d[i]) {
                        throw new UnsupportedFeatureException("partition " + request.partitionId() + ": operand "
                                + LogicalTensor.dimsToString(d) + " does not broadcast with "
                                + LogicalTensor.dimsToString(r));
                    }
                    r[j] = d[i];
                }
            }
        }
        return r;
    }

    int rowCount() {
        return rows.size();
    }

    int scalarCount() {
        return scalars.size();
    }

    static int port(CompileRequest request, LogicalTensor t) {
        List<LogicalTensor> ins = request.inputs();
        for (int i = 0; i < ins.size(); i++) {
            if (ins.get(i).id() == t.id()) {
                return i;
            }
        }
        throw new UnsupportedFeatureException("partition " + request.partitionId() + ": tensor " + t.id()
                + " is not a partition input of the fused code");
    }

    /** The operands of one execution over {@code dims}. */
    Bound bind(List<Tensor> in, long[] dims) {
        return new Bound(in, dims);
    }

    final class Bound {
        private final long[] dims;
        private final MemorySegment[] data;
        private final long[][] strides;
        private final long[] lastDims;
        final float[] scalarValues;

        private Bound(List<Tensor> in, long[] dims) {
            this.dims = dims;
            int n = rows.size();
            data = new MemorySegment[n];
            strides = new long[n][];
            lastDims = new long[n];
            for (int k = 0; k < n; k++) {
                Tensor t = in.get(rows.get(k));
                LogicalTensor lt = t.logicalTensor();
                data[k] = t.data();
                try {
                    strides[k] = Strides.broadcast(lt.dims(), lt.strides(), dims);
                } catch (IllegalArgumentException e) {
                    throw new UnsupportedFeatureException("partition " + request.partitionId() + ": " + e.getMessage());
                }
                long[] d = lt.dims();
                lastDims[k] = d.length == 0 ? 1 : d[d.length - 1];
            }
            scalarValues = new float[scalars.size()];
            for (int i = 0; i < scalarValues.length; i++) {
                scalarValues[i] = in.get(scalars.get(i)).data().getAtIndex(ValueLayout.JAVA_FLOAT, 0);
            }
        }

        int slot(int k) {
            return firstSource + k;
        }

        /** The operand's own last dim (1 when it broadcasts along the row). */
        long lastDim(int k) {
            return lastDims[k];
        }

        /** Same values for every row: broadcast along all leading dims. */
        boolean rowInvariant(int k) {
            long[] s = strides[k];
            for (int i = 0; i < s.length - 1; i++) {
                if (s[i] != 0 && dims[i] != 1) {
                    return false;
                }
            }
            return true;
        }

        /** Whether the operand has the fused dims, densely: flat chunks of it are rows too. */
        boolean dense(int k) {
            return Arrays.equals(strides[k], Strides.dense(dims));
        }

        /** Copies row {@code row} (flattened leading dims) of operand k. */
        void stage(int k, long row, float[] dst, int off, int n) {
            long[] s = strides[k];
            int last = dims.length - 1;
            read(data[k], Strides.offset(row, dims, s, last), s[last], dst, off, n);
        }

        /** Copies n elements of row {@code row} from column {@code col} on. */
        void stage(int k, long row, long col, float[] dst, int off, int n) {
            long[] s = strides[k];
            int last = dims.length - 1;
            read(data[k], Strides.offset(row, dims, s, last) + col * s[last], s[last], dst, off, n);
        }

        /** Copies n elements from flat element {@code start} of a dense operand. */
        void stageFlat(int k, long start, float[] dst, int off, int n) {
            MemorySegment.copy(data[k], ValueLayout.JAVA_FLOAT, start * 4, dst, off, n);
        }
    }

    static void read(MemorySegment s, long base, long stride, float[] dst, int off, int n) {
        if (stride == 1) {
            MemorySegment.copy(s, ValueLayout.JAVA_FLOAT, base * 4, dst, off, n);
        } else if (stride == 0) {
            Arrays.fill(dst, off, off + n, s.getAtIndex(ValueLayout.JAVA_FLOAT, base));
        } else {
            for (int i = 0; i < n; i++) {
                dst[off + i] = s.getAtIndex(ValueLayout.JAVA_FLOAT, base + i * stride);
            }
        }
    }

    static void write(float[] src, int off, MemorySegment s, long base, long stride, int n) {
        if (stride == 1) {
            MemorySegment.copy(src, off, s, ValueLayout.JAVA_FLOAT, base * 4, n);
        } else {
            for (int i = 0; i < n; i++) {
                s.setAtIndex(ValueLayout.JAVA_FLOAT, base + i * stride, src[off + i]);
            }
        }
    }

    /** Rows per task: enough work to pay for a task, at most a few tasks per thread. */
    static int tasks(long rows, long cols, Parallel pool) {
        long t = Math.min(rows, Math.max(1, rows * cols / 16384));
        return (int) Math.min(t, pool.threads() * 4L);
    }

    static long product(long[] dims, int to) {
        long p = 1;
        for (int i = 0; i < to; i++) {
            p *= dims[i];
        }
        return p;
    }

    static int padded(int n) {
        int vl = io.partita.backend.compiler.internal.codegen.VectorMath.S.length();
        return (n + vl - 1) / vl * vl;
    }
}
