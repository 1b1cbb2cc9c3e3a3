package io.partita.backend.dnnl.internal.ops;

import java.util.List;

import io.partita.spi.CpuTeam;
import io.partita.graph.LogicalTensor;
import io.partita.graph.UnsupportedFeatureException;

/** Strided views, port lookups and the run-in-parallel-when-it-pays rule shared by the single-op primitives. */
final class Views {
    /** Below this many elements of work a primitive runs on the calling thread: waking the team costs more. */
    static final long PARALLEL_GRAIN = 1 << 15;

    private Views() {
    }

    /** Index of the port with tensor id {@code id}, or -1. */
    static int indexOf(List<LogicalTensor> ports, long id) {
        for (int i = 0; i < ports.size(); i++) {
            if (ports.get(i).id() == id) {
                return i;
            }
        }
        return -1;
    }

    /** The compile-time description (strides resolved) of a partition port carrying tensor {@code t}. */
    static LogicalTensor port(List<LogicalTensor> ports, LogicalTensor t) {
        int i = indexOf(ports, t.id());
        if (i < 0) {
            throw new IllegalStateException("tensor " + t.id() + " is not a port of the partition");
        }
        return ports.get(i);
    }

    /** Outputs of the compute primitives are written densely: refuse anything else instead of mis-writing it. */
    static void requireDense(LogicalTensor t, String what) {
        if (!t.isDense()) {
            throw new UnsupportedFeatureException("dnnl: " + what + " writes a dense output; tensor " + t.id()
                    + " has strides " + java.util.Arrays.toString(t.strides()));
        }
    }

    static long product(long[] dims, int from, int to) {
        long p = 1;
        for (int i = from; i < to; i++) {
            p *= dims[i];
        }
        return p;
    }

    static int normalizeAxis(long axis, int rank) {
        return (int) (axis < 0 ? axis + rank : axis);
    }

    /**
     * Whether dims [from, to) form one dense block with unit innermost stride (size-1 dims ignored),
     * i.e. their elements sit at consecutive offsets.
     */
    static boolean contiguous(long[] dims, long[] strides, int from, int to) {
        long expect = 1;
        for (int i = to - 1; i >= from; i--) {
            if (dims[i] != 1 && strides[i] != expect) {
                return false;
            }
            expect *= dims[i];
        }
        return true;
    }

    /** Element offset of the row-major flat index {@code flat} over dims [from, to) with these strides. */
    static long offset(long flat, long[] dims, long[] strides, int from, int to) {
        long off = 0;
        for (int d = to - 1; d >= from; d--) {
            long idx = flat % dims[d];
            flat /= dims[d];
            off += idx * strides[d];
        }
        return off;
    }

    /** Runs {@code body} over [0, tasks) on the pool when there is one and the work is worth it. */
    static void parallel(CpuTeam pool, int tasks, long work, CpuTeam.RangeBody body) {
        if (pool != null && tasks > 1 && work >= PARALLEL_GRAIN) {
            pool.parallelFor(tasks, body);
        } else if (tasks > 0) {
            body.run(0, tasks);
        }
    }

    /** Threads available (1 without a pool). */
    static int threads(CpuTeam pool) {
        return pool == null ? 1 : pool.threads();
    }
}
