package io.partita.backend.compiler.internal.exec;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import io.partita.graph.LogicalTensor;
import io.partita.graph.Tensor;

/**
 * What a fused program's geometry depends on in one execution: the dims and strides of every
 * input and output and the values of the shape and order tensors of dynamic views, as one flat
 * array (each run prefixed by its length), so the per-execution lookup of a memoised geometry
 * allocates one array instead of a boxed list per tensor.
 */
final class ShapeKey {
    private final long[] words;
    private final int hash;

    private ShapeKey(long[] words) {
        this.words = words;
        this.hash = Arrays.hashCode(words);
    }

    static ShapeKey of(Collection<long[]> shapeValues, List<Tensor> in, List<Tensor> out) {
        int n = 0;
        for (long[] v : shapeValues) {
            n += 1 + v.length;
        }
        for (Tensor t : in) {
            n += 1 + 2 * Math.max(0, t.logicalTensor().ndims());
        }
        for (Tensor t : out) {
            n += 1 + 2 * Math.max(0, t.logicalTensor().ndims());
        }
        long[] w = new long[n];
        int at = 0;
        for (long[] v : shapeValues) {
            at = put(w, at, v);
        }
        for (Tensor t : in) {
            at = put(w, at, t.logicalTensor());
        }
        for (Tensor t : out) {
            at = put(w, at, t.logicalTensor());
        }
        return new ShapeKey(w);
    }

    private static int put(long[] w, int at, long[] v) {
        w[at++] = v.length;
        System.arraycopy(v, 0, w, at, v.length);
        return at + v.length;
    }

    private static int put(long[] w, int at, LogicalTensor t) {
        int rank = t.ndims();
        w[at++] = rank;
        if (rank <= 0) {
            return at;
        }
        System.arraycopy(t.dims(), 0, w, at, rank);
        long[] strides = t.strides(); // null for an opaque layout: then the layout id stands in
        if (strides == null) {
            Arrays.fill(w, at + rank, at + 2 * rank, -1 - t.layoutId());
        } else {
            System.arraycopy(strides, 0, w, at + rank, rank);
        }
        return at + 2 * rank;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShapeKey k && k.hash == hash && Arrays.equals(k.words, words);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
