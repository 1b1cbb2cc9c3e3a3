package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.function.Consumer;

import io.partita.graph.DataType;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ShapeContext;

/** MatMul: batched matrix product with optional bias, transposes of the last two dims. */
public final class MatMulSchemas {
    /** Values of {@code accumulation_mode}, as oneDNN's accumulation modes; {@code strict} is the default. */
    public static final String[] ACCUMULATION_MODES = {"strict", "relaxed", "any", "f32", "s32", "f16"};

    private MatMulSchemas() {
    }

    public static void register(Consumer<OpSchemaImpl> r) {
        r.accept(OpSchemaImpl.builder(OpKind.MatMul)
                // One type set per port: oneDNN lists mixed combinations (bf16 src with f32
                // weights, bf16 x bf16 -> f32, ...); the reference computes in double anyway.
                .typeVar("T1", DataType.F32, DataType.BF16, DataType.F16)
                .typeVar("T2", DataType.F32, DataType.BF16, DataType.F16)
                .typeVar("T3", DataType.F32, DataType.BF16, DataType.F16)
                // dst s32 (beyond oneDNN): the exact integer sums of ONNX MatMulInteger, whose operands
                // are dequantized integers; the reference accumulates in double, so they are exact.
                .typeVar("T4", DataType.F32, DataType.BF16, DataType.F16, DataType.S32)
                .input("src", "T1")
                .input("weights", "T2")
                .optionalInput("bias", "T3")
                .output("dst", "T4")
                .attr("transpose_a", false)
                .attr("transpose_b", false)
                // Newer oneDNN: the accumulation data type a backend may use (primitive attribute
                // accumulation_mode). The reference always accumulates exactly in double.
                .attr("accumulation_mode", "strict", ACCUMULATION_MODES)
                .shape(MatMulSchemas::infer)
                .build());
    }

    /**
     * src [..., M, K] x weights [..., K, N] -> [..., M, N]; a 1-D src is [1, K] and a 1-D weights
     * [K, 1], with the added dim dropped from the result; batch dims broadcast (numpy).
     */
    static void infer(ShapeContext ctx) {
        long[] a = ctx.dims(0);
        long[] b = ctx.dims(1);
        if (a == null || b == null) {
            return;
        }
        if (a.length == 0 || b.length == 0) {
            throw ctx.error("src " + dimsToString(a) + " and weights " + dimsToString(b) + " must have rank >= 1");
        }
        boolean ta = ctx.op().boolAttr("transpose_a") && a.length >= 2;
        boolean tb = ctx.op().boolAttr("transpose_b") && b.length >= 2;
        long[] a2 = a.length == 1 ? new long[] {1, a[0]} : a;
        long[] b2 = b.length == 1 ? new long[] {b[0], 1} : b;
        long m = a2[a2.length - (ta ? 1 : 2)];
        long ka = a2[a2.length - (ta ? 2 : 1)];
        long kb = b2[b2.length - (tb ? 1 : 2)];
        long n = b2[b2.length - (tb ? 2 : 1)];
        if (Dims.merge(ka, kb) == null) {
            throw ctx.error("src " + dimsToString(a) + " has K=" + ka + " but weights " + dimsToString(b) + " has K=" + kb
                    + (ta || tb ? " (transpose_a=" + ta + ", transpose_b=" + tb + ")" : ""));
        }
        int batchRank = Math.max(a2.length, b2.length) - 2;
        long[] out = new long[batchRank + 2];
        for (int i = 0; i < batchRank; i++) {
            int ia = i - (batchRank - (a2.length - 2));
            int ib = i - (batchRank - (b2.length - 2));
            long da = ia >= 0 ? a2[ia] : 1;
            long db = ib >= 0 ? b2[ib] : 1;
            if (da == 1) {
                out[i] = db;
            } else if (db == 1) {
                out[i] = da;
            } else {
                Long merged = Dims.merge(da, db);
                if (merged == null) {
                    throw ctx.error("batch dims of src " + dimsToString(a) + " and weights " + dimsToString(b)
                            + " cannot be broadcast");
                }
                out[i] = merged;
            }
        }
        out[batchRank] = m;
        out[batchRank + 1] = n;
        long[] dst = out;
        if (a.length == 1 && b.length == 1) {
            dst = java.util.Arrays.copyOf(out, batchRank); // [1,K]x[K,1] -> scalar
        } else if (a.length == 1) {
            dst = remove(out, batchRank);
        } else if (b.length == 1) {
            dst = remove(out, batchRank + 1);
        }
        if (ctx.hasInput(2)) {
            long[] bias = ctx.dims(2);
            if (bias != null && !broadcastable(bias, dst)) {
                throw ctx.error("bias " + dimsToString(bias) + " cannot be broadcast to dst " + dimsToString(dst));
            }
        }
        ctx.setOutput(0, dst);
    }

    private static long[] remove(long[] a, int i) {
        long[] r = new long[a.length - 1];
        System.arraycopy(a, 0, r, 0, i);
        System.arraycopy(a, i + 1, r, i, a.length - i - 1);
        return r;
    }

    /** Whether {@code from} broadcasts (numpy, one direction) to {@code to}. */
    public static boolean broadcastable(long[] from, long[] to) {
        if (from.length > to.length) {
            return false;
        }
        for (int i = 0; i < from.length; i++) {
            long f = from[from.length - 1 - i];
            long t = to[to.length - 1 - i];
            if (f != 1 && f >= 0 && t >= 0 && f != t) {
                return false;
            }
        }
        return true;
    }
}
