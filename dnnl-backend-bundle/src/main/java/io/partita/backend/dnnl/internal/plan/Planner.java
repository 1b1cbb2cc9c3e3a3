package io.partita.backend.dnnl.internal.plan;

import java.util.ArrayList;
import java.util.List;

import io.partita.backend.dnnl.internal.ops.BatchNormAffine;
import io.partita.backend.dnnl.internal.ops.ConvPrimitive;
import io.partita.backend.dnnl.internal.ops.ElementwisePrimitive;
import io.partita.backend.dnnl.internal.ops.MatMulPrimitive;
import io.partita.backend.dnnl.internal.ops.QuantizedPrimitive;
import io.partita.backend.dnnl.internal.ops.SingleOps;
import io.partita.backend.dnnl.internal.postops.Activation;
import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PropertyType;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;

/**
 * Turns a claimed partition (a base op and its post-op chain) into a primitive descriptor. The
 * descriptor is the primitive cache key: equal descriptors share one primitive.
 */
public final class Planner {
    private Planner() {
    }

    /** The descriptor of the partition's primitive. */
    public static Object describe(CompileRequest r) {
        for (LogicalTensor t : r.inputs()) {
            requireStatic(t);
        }
        boolean valueShaped = r.ops().size() == 1
                && io.partita.backend.dnnl.internal.pattern.PatternMatcher.valueShaped(r.ops().get(0));
        for (LogicalTensor t : r.outputs()) {
            if (!valueShaped) { // Slice and Pad learn their output dims at execution
                requireStatic(t);
            }
        }
        if (QuantizedPlan.applies(r)) {
            return QuantizedPlan.describe(r);
        }
        List<Op> ops = r.ops();
        Op base = ops.get(0);
        List<LogicalTensor> inputs = r.inputs();
        LogicalTensor out = ops.get(ops.size() - 1).output(0);
        List<PostOpChain.Step> steps = new ArrayList<>();
        List<Integer> operands = new ArrayList<>();
        List<BatchNormAffine> affines = new ArrayList<>();
        long[] outDims = out.dims();
        if (base.kind() == OpKind.MatMul && base.inputs().size() == 3) {
            addBinary(steps, operands, OpKind.Add, base.input(2), false, outDims, inputs);
        }
        LogicalTensor value = base.output(0);
        for (int i = 1; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (op.kind() == OpKind.Sigmoid && i + 1 < ops.size() && isSwishProduct(ops.get(i + 1), value, op)) {
                steps.add(new PostOpChain.Act(Activation.swish()));
                value = ops.get(++i).output(0);
                continue;
            }
            if (op.kind() == OpKind.BiasAdd) {
                addBias(steps, operands, op, outDims, inputs);
            } else if (Activation.SUPPORTED.contains(op.kind())) {
                steps.add(new PostOpChain.Act(Activation.of(op)));
            } else if (op.kind() == OpKind.BatchNormInference) {
                addBatchNorm(steps, operands, affines, op, outDims, inputs);
            } else {
                boolean right = op.input(1).id() == value.id();
                addBinary(steps, operands, op.kind(), right ? op.input(0) : op.input(1), right, outDims, inputs);
            }
            value = op.output(0);
        }
        PostOpChain chain = new PostOpChain(outDims, steps);
        int[] postInputs = operands.stream().mapToInt(Integer::intValue).toArray();
        int dst = r.outputs().size() == 1 ? 0 : indexOf(r.outputs(), out.id());
        if (dst != 0) {
            throw new UnsupportedFeatureException("dnnl: partition " + r.partitionId() + " has unexpected outputs");
        }
        return switch (base.kind()) {
            case MatMul -> new MatMulPrimitive.Desc(port(inputs, base.input(0)), port(inputs, base.input(1)),
                    r.outputs().get(0), base.boolAttr("transpose_a"), base.boolAttr("transpose_b"),
                    indexOf(inputs, base.input(0).id()), indexOf(inputs, base.input(1).id()),
                    port(inputs, base.input(1)).property() == PropertyType.CONSTANT, chain, postInputs);
            case Convolution -> ConvPrimitive.describe(base, inputs, r.outputs().get(0), chain, postInputs, affines);
            default -> {
                if (Activation.SUPPORTED.contains(base.kind()) || base.kind() == OpKind.BatchNormInference
                        || io.partita.backend.dnnl.internal.pattern.PatternMatcher.isBinary(base.kind())) {
                    yield ElementwisePrimitive.describe(base, inputs, r.outputs().get(0), chain, postInputs, affines);
                }
                yield SingleOps.describe(base, inputs, r.outputs(), chain, postInputs);
            }
        };
    }

    /** Whether {@code mul} multiplies {@code value} by {@code sigmoid}'s output, sigmoid being of value. */
    private static boolean isSwishProduct(Op mul, LogicalTensor value, Op sigmoid) {
        long s = sigmoid.output(0).id();
        return mul.kind() == OpKind.Multiply && sigmoid.input(0).id() == value.id()
                && (mul.input(0).id() == value.id() && mul.input(1).id() == s
                        || mul.input(1).id() == value.id() && mul.input(0).id() == s);
    }

    /** Creates the primitive of a descriptor. */
    public static Primitive create(Object desc) {
        if (desc instanceof MatMulPrimitive.Desc d) {
            return new MatMulPrimitive(d);
        }
        if (desc instanceof QuantizedPrimitive.Desc d) {
            return new QuantizedPrimitive(d, create(d.inner()));
        }
        if (desc instanceof ConvPrimitive.Desc d) {
            return new ConvPrimitive(d);
        }
        if (desc instanceof ElementwisePrimitive.Desc d) {
            return new ElementwisePrimitive(d);
        }
        return SingleOps.create(desc);
    }

    private static void requireStatic(LogicalTensor t) {
        if (!t.isConcrete()) {
            throw new UnsupportedFeatureException("the dnnl backend compiles static shapes only; tensor " + t.id()
                    + " is " + LogicalTensor.dimsToString(t.dims()));
        }
    }

    /** The compile-time description of a partition input (strides as given at compile). */
    static LogicalTensor port(List<LogicalTensor> inputs, LogicalTensor t) {
        return inputs.get(indexOf(inputs, t.id()));
    }

    static int indexOf(List<LogicalTensor> ports, long id) {
        for (int i = 0; i < ports.size(); i++) {
            if (ports.get(i).id() == id) {
                return i;
            }
        }
        throw new IllegalStateException("tensor " + id + " is not a port of the partition");
    }

    private static void addBias(List<PostOpChain.Step> steps, List<Integer> operands, Op op, long[] outDims,
            List<LogicalTensor> inputs) {
        LogicalTensor bias = port(inputs, op.input(1));
        int channel = "NCX".equals(op.stringAttr("data_format")) ? 1 : outDims.length - 1;
        long[] strides = new long[outDims.length];
        strides[channel] = bias.strides()[0];
        steps.add(new PostOpChain.Bin(OpKind.Add, operands.size(), strides, false));
        operands.add(indexOf(inputs, bias.id()));
    }

    /** BatchNormInference as a per-channel Multiply and Add whose operands are computed ({@link BatchNormAffine}). */
    static void addBatchNorm(List<PostOpChain.Step> steps, List<Integer> operands, List<BatchNormAffine> affines, Op op,
            long[] outDims, List<LogicalTensor> inputs) {
        int k = affines.size();
        affines.add(BatchNormAffine.of(op, inputs));
        long[] strides = new long[outDims.length];
        strides["NCX".equals(op.stringAttr("data_format")) ? 1 : outDims.length - 1] = 1;
        steps.add(new PostOpChain.Bin(OpKind.Multiply, operands.size(), strides, false));
        operands.add(BatchNormAffine.scaleOperand(k));
        steps.add(new PostOpChain.Bin(OpKind.Add, operands.size(), strides, false));
        operands.add(BatchNormAffine.shiftOperand(k));
    }

    private static void addBinary(List<PostOpChain.Step> steps, List<Integer> operands, OpKind kind, LogicalTensor other,
            boolean chainIsRight, long[] outDims, List<LogicalTensor> inputs) {
        LogicalTensor o = port(inputs, other);
        long[] od = o.dims();
        long[] os = o.strides();
        long[] strides = new long[outDims.length];
        for (int i = 0; i < od.length; i++) {
            int at = i + outDims.length - od.length;
            strides[at] = od[i] == 1 && outDims[at] != 1 ? 0 : os[i];
        }
        steps.add(new PostOpChain.Bin(kind, operands.size(), strides, chainIsRight));
        operands.add(indexOf(inputs, o.id()));
    }
}
