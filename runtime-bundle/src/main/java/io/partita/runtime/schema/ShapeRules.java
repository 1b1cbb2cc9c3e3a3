package io.partita.runtime.schema;

import io.partita.graph.LogicalTensor;

/** Shape inference rules shared by many op kinds. */
public final class ShapeRules {
    private ShapeRules() {
    }

    /** Every output has the dims of input 0 (eltwise, softmax, ...). */
    public static void sameAsFirstInput(ShapeContext ctx) {
        for (int i = 0; i < ctx.outputCount(); i++) {
            ctx.sameAsInput(i, 0);
        }
    }

    /**
     * Numpy-style broadcast of two shapes: align to the right, a dim of 1 stretches, others must
     * match.
     *
     * @return the broadcast dims, or null when either rank is unknown
     */
    public static long[] broadcast(ShapeContext ctx, int in0, int in1) {
        long[] a = ctx.dims(in0);
        long[] b = ctx.dims(in1);
        if (a == null || b == null) {
            return null;
        }
        int rank = Math.max(a.length, b.length);
        long[] out = new long[rank];
        for (int i = 0; i < rank; i++) {
            int ia = i - (rank - a.length);
            int ib = i - (rank - b.length);
            long da = ia >= 0 ? a[ia] : 1;
            long db = ib >= 0 ? b[ib] : 1;
            out[i] = broadcastDim(ctx, da, db, in0, in1);
        }
        return out;
    }

    private static long broadcastDim(ShapeContext ctx, long da, long db, int in0, int in1) {
        if (da == 1) {
            return db;
        }
        if (db == 1) {
            return da;
        }
        if (da >= 0 && db >= 0) {
            if (da != db) {
                throw ctx.error("inputs " + in0 + " " + LogicalTensor.dimsToString(ctx.dims(in0)) + " and " + in1 + " "
                        + LogicalTensor.dimsToString(ctx.dims(in1)) + " cannot be broadcast (numpy rules)");
            }
            return da;
        }
        // One side unknown/dynamic and the other not 1: the known value decides when present.
        if (da >= 0) {
            return db == LogicalTensor.DYNAMIC_DIM ? LogicalTensor.DYNAMIC_DIM : da;
        }
        if (db >= 0) {
            return da == LogicalTensor.DYNAMIC_DIM ? LogicalTensor.DYNAMIC_DIM : db;
        }
        return Dims.placeholderOf(da, db);
    }

    /**
     * Elementwise ops with an {@code auto_broadcast} attribute: {@code none} requires equal shapes,
     * {@code numpy} broadcasts.
     */
    public static long[] autoBroadcast(ShapeContext ctx, int in0, int in1) {
        String mode = ctx.op().hasAttr("auto_broadcast") ? ctx.op().stringAttr("auto_broadcast") : "numpy";
        if ("none".equals(mode)) {
            long[] a = ctx.dims(in0);
            long[] b = ctx.dims(in1);
            if (a == null) {
                return b;
            }
            if (b == null) {
                return a;
            }
            if (a.length != b.length) {
                throw ctx.error("auto_broadcast is none but inputs have ranks " + a.length + " and " + b.length);
            }
            long[] out = new long[a.length];
            for (int i = 0; i < a.length; i++) {
                Long m = Dims.merge(a[i], b[i]);
                if (m == null) {
                    throw ctx.error("auto_broadcast is none but inputs " + LogicalTensor.dimsToString(a) + " and "
                            + LogicalTensor.dimsToString(b) + " differ at dim " + i);
                }
                out[i] = m;
            }
            return out;
        }
        return broadcast(ctx, in0, in1);
    }
}
