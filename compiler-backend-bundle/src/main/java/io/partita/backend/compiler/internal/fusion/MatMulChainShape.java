package io.partita.backend.compiler.internal.fusion;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * A MatMul (2-D or batched, f32, either operand transposed, an optional bias broadcasting to its
 * output) with the elementwise chain computing its src A (the prologue: A is read by the MatMul
 * only) and the chain applied to its output (the epilogue, cut to one result). Fused, A exists
 * one block of rows at a time and the epilogue runs on each register tile before it is stored.
 *
 * @param prologue ops computing A, topologically ordered (empty when A is a partition input)
 * @param matmul   the MatMul
 * @param epilogue ops after it, topologically ordered; the last one's output is the result
 */
public record MatMulChainShape(List<Op> prologue, Op matmul, List<Op> epilogue) {

    public List<Op> ops() {
        List<Op> all = new ArrayList<>(prologue);
        all.add(matmul);
        all.addAll(epilogue);
        return all;
    }

    public LogicalTensor a() {
        return matmul.input(0);
    }

    public LogicalTensor b() {
        return matmul.input(1);
    }

    /** The bias input, or null. */
    public LogicalTensor bias() {
        return matmul.inputs().size() == 3 ? matmul.input(2) : null;
    }

    /** The tensor the fused code writes: the epilogue's result, else the MatMul's output. */
    public LogicalTensor result() {
        return epilogue.isEmpty() ? matmul.output(0) : epilogue.getLast().output(0);
    }

    public boolean hasDynamicDim() {
        for (Op op : ops()) {
            for (LogicalTensor t : op.inputs()) {
                if (t.hasDynamicDim()) {
                    return true;
                }
            }
            if (op.output(0).hasDynamicDim()) {
                return true;
            }
        }
        return false;
    }

    /** The fused form around a MatMul, or null when it is not one this backend computes. */
    public static MatMulChainShape around(Op matmul, OpIndex index, Predicate<Op> available,
            LongPredicate leavesGraph) {
        if (!fusible(matmul) || !available.test(matmul)) {
            return null;
        }
        long aId = matmul.input(0).id();
        long out = matmul.output(0).id();
        long[] outDims = matmul.output(0).dims();
        List<Op> pre = prologue(matmul, index, available, leavesGraph);
        Set<Op> excluded = new HashSet<>(pre);
        excluded.add(matmul);
        List<Op> post = Regions.forward(out, outDims, index, available, excluded, Set.of(out));
        post = Regions.singleExit(post, out, index, leavesGraph);
        // a path leaving the partition and coming back: drop the epilogue, then the prologue
        List<List<Op>> pres = List.of(pre, pre, List.of());
        List<List<Op>> posts = List.of(post, List.of(), List.of());
        for (int i = 0; i < pres.size(); i++) {
            MatMulChainShape s = new MatMulChainShape(pres.get(i), matmul, posts.get(i));
            if (Regions.convex(s.ops(), index)) {
                return s;
            }
        }
        return null;
    }

    /**
     * The ops computing A: back from it while they join A's dims, less those whose results are
     * needed elsewhere (A itself too: the fused code never writes it) and those finishing another
     * MatMul's or convolution's output (the DNNL-style backend fuses those as its post-ops).
     */
    private static List<Op> prologue(Op matmul, OpIndex index, Predicate<Op> available, LongPredicate leavesGraph) {
        LogicalTensor a = matmul.input(0);
        List<Op> region = Regions.backward(a.id(), a.dims(), matmul, index, p -> available.test(p)
                && p.inputs().stream().noneMatch(in -> finishesPostOpHost(in.id(), index, available, POST_OP_DEPTH)),
                leavesGraph, t -> false);
        // the bias and B are read as partition inputs: the prologue may not compute them
        for (int i = 1; i < matmul.inputs().size(); i++) {
            Op p = index.producer(matmul.input(i).id());
            if (p != null && region.contains(p)) {
                return List.of();
            }
        }
        return region;
    }

    /** How far back a chain of bias and elementwise ops is followed to its MatMul or convolution. */
    private static final int POST_OP_DEPTH = 8;

    /**
     * Whether the tensor comes out of a MatMul or convolution through bias and elementwise ops only
     * (MatMul → BiasAdd → ReLU in an MLP): then an op reading it belongs to that op's post-op chain,
     * which the DNNL-style backend fuses, not to the next MatMul's prologue.
     */
    private static boolean finishesPostOpHost(long tensor, OpIndex index, Predicate<Op> available, int depth) {
        Op q = index.producer(tensor);
        if (q == null || !available.test(q) || depth == 0) {
            return false;
        }
        if (postOpHost(q)) {
            return true;
        }
        if (q.kind() != OpKind.BiasAdd && !ExprBuilder.supports(q)) {
            return false;
        }
        for (LogicalTensor in : q.inputs()) {
            if (finishesPostOpHost(in.id(), index, available, depth - 1)) {
                return true;
            }
        }
        return false;
    }

    /** An op the DNNL-style backend fuses elementwise post-ops into. */
    private static boolean postOpHost(Op op) {
        return op.kind() == OpKind.MatMul || op.kind() == OpKind.Convolution
                || op.kind() == OpKind.ConvTranspose;
    }

    /** f32 MatMul, both operands of rank 2 or more, a bias broadcasting to the output. */
    static boolean fusible(Op op) {
        if (op.kind() != OpKind.MatMul || op.inputs().size() < 2 || op.inputs().size() > 3
                || op.outputs().size() != 1) {
            return false;
        }
        for (LogicalTensor t : op.inputs()) {
            if (t.dataType() != DataType.F32 || t.dims() == null) {
                return false;
            }
        }
        LogicalTensor o = op.output(0);
        if (o.dataType() != DataType.F32 || o.dims() == null || o.dims().length < 2) {
            return false;
        }
        if (op.input(0).dims().length < 2 || op.input(1).dims().length < 2
                || o.dims().length != Math.max(op.input(0).dims().length, op.input(1).dims().length)) {
            return false;
        }
        return op.inputs().size() == 2 || Regions.broadcastsTo(op.input(2).dims(), o.dims());
    }
}
