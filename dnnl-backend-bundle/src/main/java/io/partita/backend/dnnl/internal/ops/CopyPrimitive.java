package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * Data movement as strided copies: Reorder (any input strides to the output's strides),
 * TypeCast (f32 <-> bf16/f16), StaticReshape (logical order kept), StaticTranspose (the source
 * viewed with permuted strides) and Concat (each input into its slice of the output). The output
 * may have any strides the user asked for.
 */
public final class CopyPrimitive implements Primitive {

    /**
     * One copy: input {@code input} seen through {@code srcDims}/{@code srcStrides} into the output
     * at element offset {@code dstOffset} seen through {@code dstDims}/{@code dstStrides}.
     */
    public record Piece(int input, long[] srcDims, long[] srcStrides, long dstOffset, long[] dstDims,
            long[] dstStrides) {
        public Piece {
            srcDims = srcDims.clone();
            srcStrides = srcStrides.clone();
            dstDims = dstDims.clone();
            dstStrides = dstStrides.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Piece p && p.input == input && p.dstOffset == dstOffset
                    && Arrays.equals(p.srcDims, srcDims) && Arrays.equals(p.srcStrides, srcStrides)
                    && Arrays.equals(p.dstDims, dstDims) && Arrays.equals(p.dstStrides, dstStrides);
        }

        @Override
        public int hashCode() {
            return ((input * 31 + Long.hashCode(dstOffset)) * 31 + Arrays.hashCode(srcDims)) * 31
                    + Arrays.hashCode(srcStrides) * 7 + Arrays.hashCode(dstStrides);
        }

        @Override
        public String toString() {
            return "in" + input + Arrays.toString(srcDims) + ":" + Arrays.toString(srcStrides) + "->@" + dstOffset
                    + Arrays.toString(dstDims) + ":" + Arrays.toString(dstStrides);
        }
    }

    /** The copies and the element types: the primitive cache key. */
    public record Desc(List<Piece> pieces, DataType srcType, DataType dstType) {
        public Desc {
            pieces = List.copyOf(pieces);
        }
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, LogicalTensor dst) {
        long[] od = dst.dims();
        long[] os = dst.strides();
        List<Piece> pieces = new ArrayList<>();
        LogicalTensor src = Views.port(inputs, op.input(0));
        int in0 = Views.indexOf(inputs, src.id());
        switch (op.kind()) {
            case Reorder, TypeCast, StaticReshape ->
                pieces.add(new Piece(in0, src.dims(), src.strides(), 0, od, os));
            case StaticTranspose -> {
                long[] sd = src.dims();
                long[] ss = src.strides();
                int rank = sd.length;
                long[] order = op.longsAttr("order");
                long[] viewDims = new long[rank];
                long[] viewStrides = new long[rank];
                for (int i = 0; i < rank; i++) {
                    // An empty order reverses the dims.
                    int from = order.length == 0 ? rank - 1 - i : Views.normalizeAxis(order[i], rank);
                    viewDims[i] = sd[from];
                    viewStrides[i] = ss[from];
                }
                pieces.add(new Piece(in0, viewDims, viewStrides, 0, od, os));
            }
            case Concat -> {
                int axis = Views.normalizeAxis(op.longAttr("axis"), od.length);
                long at = 0;
                for (LogicalTensor t : op.inputs()) {
                    LogicalTensor p = Views.port(inputs, t);
                    long[] pd = p.dims();
                    if (pd[axis] > 0) {
                        pieces.add(new Piece(Views.indexOf(inputs, p.id()), pd, p.strides(), at * os[axis], pd, os));
                    }
                    at += pd[axis];
                }
            }
            default -> throw new IllegalArgumentException("no copy primitive for " + op.describe());
        }
        return new Desc(pieces, src.dataType(), dst.dataType());
    }

    /** A piece's plan, or two (into a dense scratch and out of it) when the views share no dims. */
    private record Step(Piece piece, StridedCopy.Plan direct, StridedCopy.Plan in, StridedCopy.Plan out) {
    }

    private final Desc d;
    private final Step[] steps;
    private final int st;
    private final int dt;

    public CopyPrimitive(Desc d) {
        this.d = d;
        this.st = StridedCopy.code(d.srcType());
        this.dt = StridedCopy.code(d.dstType());
        this.steps = new Step[d.pieces().size()];
        for (int i = 0; i < steps.length; i++) {
            Piece p = d.pieces().get(i);
            StridedCopy.Plan direct = StridedCopy.plan(p.srcDims, p.srcStrides, p.dstDims, p.dstStrides);
            if (direct != null) {
                steps[i] = new Step(p, direct, null, null);
            } else {
                long[] flat = {Views.product(p.srcDims, 0, p.srcDims.length)};
                long[] unit = {1};
                steps[i] = new Step(p, null, StridedCopy.plan(p.srcDims, p.srcStrides, flat, unit),
                        StridedCopy.plan(flat, unit, p.dstDims, p.dstStrides));
            }
        }
    }

    @Override
    public void execute(Invocation inv) {
        MemorySegment out = inv.out(0);
        for (Step s : steps) {
            MemorySegment in = inv.in(s.piece.input);
            if (s.direct != null) {
                StridedCopy.run(s.direct, in, 0, st, out, s.piece.dstOffset, dt, inv.pool());
            } else {
                long n = s.in.total();
                MemorySegment scratch = MemorySegment.ofArray(new float[(int) ((n * StridedCopy.size(st) + 3) / 4)]);
                StridedCopy.run(s.in, in, 0, st, scratch, 0, st, inv.pool());
                StridedCopy.run(s.out, scratch, 0, st, out, s.piece.dstOffset, dt, inv.pool());
            }
        }
    }

    @Override
    public String toString() {
        return "copy " + d.srcType() + "->" + d.dstType() + " " + d.pieces();
    }
}
