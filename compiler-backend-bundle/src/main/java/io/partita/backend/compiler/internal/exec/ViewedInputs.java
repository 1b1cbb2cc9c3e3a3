package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.backend.compiler.internal.fusion.OpIndex;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;

/**
 * How a fused loop finds its operands: each tensor it reads is a partition input seen through a
 * chain of view ops, addressed in the input's memory by strides; its output is written through
 * the views after it the same way. Shared by the attention programs.
 */
final class ViewedInputs {
    /** A score leaf read from a partition input (through views). */
    record Operand(long tensor, int port, DataType type) {
    }

    private final CompileRequest request;
    private final Map<Long, Integer> inputPort = new HashMap<>();
    private final Map<Long, List<Op>> viewChains = new HashMap<>();
    private final Map<Long, LogicalTensor> declared = new HashMap<>();

    ViewedInputs(CompileRequest request) {
        this.request = request;
        for (int i = 0; i < request.inputs().size(); i++) {
            inputPort.put(request.inputs().get(i).id(), i);
        }
        for (Op op : request.ops()) {
            op.inputs().forEach(t -> declared.putIfAbsent(t.id(), t));
            op.outputs().forEach(t -> declared.putIfAbsent(t.id(), t));
        }
    }

    /** The dims a tensor was declared with in the partition. */
    long[] dims(long tensor) {
        return declared.get(tensor).dims();
    }

    int inputPort(long tensor) {
        Integer p = inputPort.get(tensor);
        return p == null ? -1 : p;
    }

    int outputPort(long id) {
        for (int i = 0; i < request.outputs().size(); i++) {
            if (request.outputs().get(i).id() == id) {
                return i;
            }
        }
        throw new UnsupportedFeatureException("partition " + request.partitionId() + ": tensor " + id
                + " is not a partition output");
    }

    /** Follows view ops back to the partition input a tensor comes from. */
    int portThroughViews(long tensor, OpIndex index) {
        List<Op> chain = new ArrayList<>();
        long t = tensor;
        while (!inputPort.containsKey(t)) {
            Op p = index.producer(t);
            if (p == null || !OpIndex.VIEWS.contains(p.kind())) {
                throw new UnsupportedFeatureException("partition " + request.partitionId() + ": tensor " + tensor
                        + " is neither a partition input nor a view of one");
            }
            chain.addFirst(p);
            t = p.input(0).id();
        }
        viewChains.put(tensor, chain);
        return inputPort.get(t);
    }

    /**
     * The expression leaf of a score operand: a scalar when it has one element, a staged row
     * otherwise; recorded in {@code scalars} or {@code operands}.
     */
    int leaf(ExprBuilder b, LogicalTensor t, OpIndex index, List<Operand> operands, List<Operand> scalars) {
        Operand o = new Operand(t.id(), portThroughViews(t.id(), index), t.dataType());
        if (!Elements.supported(t.dataType())) {
            throw new UnsupportedFeatureException("attention score operand " + t.id() + " has data type "
                    + t.dataType() + "; fused code reads f32, bf16, f16, s32, s8, u8 and boolean");
        }
        boolean single = t.dims() != null;
        if (single) {
            for (long x : t.dims()) {
                single &= x == 1;
            }
        }
        (single ? scalars : operands).add(o);
        int leaf = single ? b.scalar() : b.source();
        b.bind(t.id(), leaf);
        return leaf;
    }

    /** The memory of each operand's partition input. */
    static MemorySegment[] data(List<Operand> operands, List<Tensor> in) {
        MemorySegment[] m = new MemorySegment[operands.size()];
        for (int i = 0; i < m.length; i++) {
            m[i] = in.get(operands.get(i).port()).data();
        }
        return m;
    }

    /** The value of each single-element operand. */
    static float[] values(List<Operand> scalars, List<Tensor> in) {
        float[] v = new float[scalars.size()];
        for (int i = 0; i < v.length; i++) {
            Operand o = scalars.get(i);
            v[i] = Elements.get(o.type(), in.get(o.port()).data(), 0);
        }
        return v;
    }

    /**
     * Strides of a tensor in the memory of the partition input it views.
     *
     * @param dimsOf dims of the tensors along the chain for this execution
     * @param values shape and order tensors of dynamic views, by id
     */
    long[] viewStrides(long tensor, List<Tensor> in, LongFunction<long[]> dimsOf,
            Map<Long, long[]> values) {
        List<Op> chain = viewChains.get(tensor);
        long source = chain.isEmpty() ? tensor : chain.get(0).input(0).id();
        LogicalTensor given = in.get(inputPort.get(source)).logicalTensor();
        long[] dims = given.dims();
        long[] st = given.strides();
        for (Op op : chain) {
            long[] nd = dimsOf.apply(op.output(0).id());
            st = switch (op.kind()) {
                case StaticTranspose -> Strides.transpose(st, op.longsAttr("order"));
                case DynamicTranspose -> Strides.transpose(st, values.get(op.input(1).id()));
                case StaticReshape, DynamicReshape -> Strides.reshape(dims, st, nd);
                default -> st; // Reorder: same values, read where they are
            };
            if (st == null) {
                throw new UnsupportedFeatureException("partition " + request.partitionId() + ": " + op.describe()
                        + " cannot be read in place (a reshape across transposed dims)");
            }
            dims = nd;
        }
        return st;
    }

    /** Strides of the tensor before the view ops {@code suffix} in the memory of the output they make. */
    long[] outputStrides(List<Op> suffix, LogicalTensor given, LongFunction<long[]> dimsOf, Map<Long, long[]> values) {
        long[] st = given.strides();
        for (int i = suffix.size() - 1; i >= 0; i--) {
            Op op = suffix.get(i);
            long[] yd = dimsOf.apply(op.output(0).id());
            long[] xd = dimsOf.apply(op.input(0).id());
            st = switch (op.kind()) {
                case StaticTranspose -> Strides.untranspose(st, op.longsAttr("order"));
                case DynamicTranspose -> Strides.untranspose(st, values.get(op.input(1).id()));
                case StaticReshape, DynamicReshape -> Strides.reshape(yd, st, xd);
                default -> st;
            };
            if (st == null) {
                throw new UnsupportedFeatureException("partition " + request.partitionId() + ": " + op.describe()
                        + " cannot be written in place");
            }
        }
        return st;
    }
}
