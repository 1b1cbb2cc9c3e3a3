package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.DataType;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.UnsupportedFeatureException;

/**
 * PartitaGather (ONNX Gather: embedding lookups, token and position tables) on dense f32 data:
 * for every outer index and every index value, one block copy of the slice behind it. Index
 * values are read at execution (s32 or s64), negative ones counted from the end; one outside
 * {@code [-n, n-1]} is an error naming it, raised before anything is written.
 */
public final class GatherPrimitive implements Primitive {

    /** Data shape around the axis (outer, n, inner), index count and type, ports: the primitive cache key. */
    public record Desc(long outer, long n, long inner, long indices, boolean longIndices, int axis, int srcInput,
            int indicesInput, String op) {
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, LogicalTensor dst) {
        LogicalTensor src = Views.port(inputs, op.input(0));
        LogicalTensor ind = Views.port(inputs, op.input(1));
        for (LogicalTensor t : List.of(src, ind)) {
            if (!t.isDense()) {
                throw new UnsupportedFeatureException("dnnl: Gather reads dense inputs; tensor " + t.id()
                        + " has strides " + java.util.Arrays.toString(t.strides()));
            }
        }
        Views.requireDense(dst, "Gather");
        long[] dims = src.dims();
        int axis = (int) Math.floorMod(op.longAttr("axis"), dims.length);
        return new Desc(Views.product(dims, 0, axis), dims[axis], Views.product(dims, axis + 1, dims.length),
                ind.elementCount(), ind.dataType() == DataType.S64, axis, Views.indexOf(inputs, src.id()),
                Views.indexOf(inputs, ind.id()), op.describe());
    }

    private final Desc d;

    public GatherPrimitive(Desc d) {
        this.d = d;
    }

    @Override
    public void execute(Invocation inv) {
        MemorySegment src = inv.in(d.srcInput());
        MemorySegment ind = inv.in(d.indicesInput());
        MemorySegment dst = inv.out(0);
        long count = d.indices();
        long[] rows = new long[Math.toIntExact(count)];
        for (int i = 0; i < rows.length; i++) {
            long k = d.longIndices() ? ind.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i)
                    : ind.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
            if (k < -d.n() || k >= d.n()) {
                throw new InvalidArgumentException(d.op() + ": index " + k + " is out of range for axis " + d.axis()
                        + " of size " + d.n() + "; expected an index in [" + -d.n() + ", " + (d.n() - 1) + "]");
            }
            rows[i] = k < 0 ? k + d.n() : k;
        }
        long bytes = d.inner() * 4;
        long tasks = d.outer() * count;
        if (tasks == 0 || bytes == 0) {
            return;
        }
        if (tasks > Integer.MAX_VALUE) {
            throw new UnsupportedFeatureException("dnnl: " + d.op() + " copies " + tasks + " slices");
        }
        Views.parallel(inv.pool(), (int) tasks, tasks * d.inner(), (t0, t1) -> {
            for (int t = t0; t < t1; t++) {
                long o = t / count;
                long k = rows[(int) (t % count)];
                MemorySegment.copy(src, (o * d.n() + k) * bytes, dst, t * bytes, bytes);
            }
        });
    }

    @Override
    public String toString() {
        return "gather " + d;
    }
}
