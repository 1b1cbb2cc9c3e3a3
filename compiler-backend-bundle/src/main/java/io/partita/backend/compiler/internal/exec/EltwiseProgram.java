package io.partita.backend.compiler.internal.exec;

import java.util.List;

import io.partita.backend.compiler.internal.codegen.RowKernel;
import io.partita.backend.compiler.internal.codegen.RowKernelGenerator;
import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.backend.compiler.internal.fusion.EltwiseShape;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;

/**
 * A compiled elementwise chain: one generated pass per row of the output, operands staged
 * broadcast. When every staged operand is dense with the output's dims (no broadcasting) the
 * tensor is walked in flat chunks instead, so short rows cost no per-row call.
 */
public final class EltwiseProgram implements Program {
    private static final int CHUNK = 4096;
    private final CompileRequest request;
    private final RowOperands ops;
    private final Expr expr;
    private final RowKernel rowKernel;
    private final int slots;
    private final String what;
    /** The same chain over whole dense chunks (no static row length); asked for at compile so blobs hold it. */
    private final RowKernel flatKernel;

    public EltwiseProgram(CompileRequest request, EltwiseShape shape, RowKernelGenerator generator) {
        this.request = request;
        this.what = "partition " + request.partitionId() + " (" + request.pattern() + ")";
        if (request.outputs().size() != 1 || request.outputs().get(0).id() != shape.result().id()) {
            throw new UnsupportedFeatureException(what + ": a fused elementwise chain writes one output");
        }
        long[] dims = shape.result().dims();
        int rank = dims.length;
        long c = dims[rank - 1];
        ops = new RowOperands(request, 0);
        ExprBuilder b = new ExprBuilder();
        for (Op op : shape.ops()) {
            b.add(op, rank, t -> ops.leaf(b, t));
        }
        expr = b.build(shape.result().id());
        slots = expr.sources();
        int staticN = c > 0 && c < Integer.MAX_VALUE / 8 ? (int) c : 0;
        rowKernel = generator.kernel(expr, staticN, what);
        flatKernel = staticN == 0 ? rowKernel : generator.kernel(expr, 0, what);
    }

    @Override
    public void execute(List<Tensor> in, List<Tensor> out, Parallel pool) {
        Tensor res = out.get(0);
        LogicalTensor lt = res.logicalTensor();
        long[] dims = lt.dims();
        int last = dims.length - 1;
        long total = lt.elementCount();
        if (total == 0) {
            return;
        }
        if (dims[last] > Integer.MAX_VALUE / 8) {
            throw new UnsupportedFeatureException("row length " + dims[last] + " is beyond the fused chain's limit");
        }
        RowOperands.Bound bound = ops.bind(in, dims);
        boolean flat = lt.isDense() && java.util.Arrays.equals(lt.strides(), Strides.dense(dims));
        for (int k = 0; k < ops.rowCount() && flat; k++) {
            flat = bound.dense(k);
        }
        if (flat && dims[last] < CHUNK) {
            RowKernel kernel = flatKernel;
            long chunks = (total + CHUNK - 1) / CHUNK;
            int tasks = RowOperands.tasks(chunks, CHUNK, pool);
            pool.forEach(tasks, t -> flat(kernel, t * chunks / tasks, (t + 1) * chunks / tasks, total, res, bound));
            return;
        }
        int n = (int) dims[last];
        long rows = RowOperands.product(dims, last);
        int tasks = RowOperands.tasks(rows, n, pool);
        pool.forEach(tasks, t -> rows(t * rows / tasks, (t + 1) * rows / tasks, n, dims, res, bound));
    }

    private float[][] slots(float[] buf, int np, int[] off) {
        float[][] src = new float[slots][];
        for (int s = 0; s < slots; s++) {
            src[s] = buf;
            off[s] = s * np;
        }
        return src;
    }

    private void rows(long r0, long r1, int n, long[] dims, Tensor res, RowOperands.Bound bound) {
        int np = RowOperands.padded(n);
        int last = dims.length - 1;
        float[] buf = new float[slots * np];
        int[] off = new int[slots];
        float[][] src = slots(buf, np, off);
        boolean[] each = new boolean[ops.rowCount()];
        for (int k = 0; k < each.length; k++) {
            each[k] = bound.slot(k) == 0 || !bound.rowInvariant(k); // slot 0 takes the result
            if (!each[k]) {
                bound.stage(k, 0, buf, bound.slot(k) * np, n);
            }
        }
        long[] st = res.logicalTensor().strides();
        for (long r = r0; r < r1; r++) {
            for (int k = 0; k < each.length; k++) {
                if (each[k]) {
                    bound.stage(k, r, buf, bound.slot(k) * np, n);
                }
            }
            rowKernel.apply(src, off, bound.scalarValues, n, (int) r, 0);
            RowOperands.write(buf, 0, res.data(), Strides.offset(r, dims, st, last), st[last], n);
        }
    }

    private void flat(RowKernel kernel, long c0, long c1, long total, Tensor res, RowOperands.Bound bound) {
        float[] buf = new float[slots * CHUNK];
        int[] off = new int[slots];
        float[][] src = slots(buf, CHUNK, off);
        for (long c = c0; c < c1; c++) {
            long start = c * CHUNK;
            int n = (int) Math.min(CHUNK, total - start);
            for (int k = 0; k < ops.rowCount(); k++) {
                bound.stageFlat(k, start, buf, bound.slot(k) * CHUNK, n);
            }
            kernel.apply(src, off, bound.scalarValues, n, 0, 0);
            RowOperands.write(buf, 0, res.data(), start, 1, n);
        }
    }
}
