package io.partita.backend.compiler.internal.expr;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * Translates a chain of elementwise ops into an {@link Expr}. Tensors produced inside the chain
 * are bound to nodes; any other input is handed to the caller, which makes it a staged row, a
 * scalar or a constant leaf.
 */
public final class ExprBuilder {
    private static final Set<OpKind> SUPPORTED = EnumSet.of(OpKind.Add, OpKind.Subtract, OpKind.Multiply,
            OpKind.Divide, OpKind.Maximum, OpKind.Minimum, OpKind.SquaredDifference, OpKind.PartitaPow,
            OpKind.GreaterEqual, OpKind.Select, OpKind.GenIndex, OpKind.ReLU, OpKind.Sigmoid, OpKind.Tanh, OpKind.Exp,
            OpKind.Log, OpKind.Abs, OpKind.Sqrt, OpKind.Square, OpKind.Reciprocal, OpKind.Round, OpKind.PartitaErf,
            OpKind.Mish, OpKind.HardSwish, OpKind.GELU, OpKind.Elu, OpKind.LeakyReLU, OpKind.SoftPlus, OpKind.Pow,
            OpKind.Clamp, OpKind.HardSigmoid);

    private final List<Expr.Node> nodes = new ArrayList<>();
    private final Map<Long, Integer> bound = new HashMap<>();
    private int sources;
    private int scalars;

    /** Whether the op can be part of a fused elementwise expression (f32 values, boolean conditions). */
    public static boolean supports(Op op) {
        if (!SUPPORTED.contains(op.kind()) || op.outputs().size() != 1) {
            return false;
        }
        if (op.kind() == OpKind.GELU) {
            String mode = op.attr("mode").map(v -> v.toString()).orElse("gelu_erf");
            return mode.contains("gelu_erf") || mode.contains("gelu_tanh");
        }
        return true;
    }

    /** A new staged-row leaf. */
    public int source() {
        return add(new Expr.Node(Fn.SOURCE, new int[0], new float[0], sources++));
    }

    /** A new per-call scalar leaf. */
    public int scalar() {
        return add(new Expr.Node(Fn.SCALAR, new int[0], new float[0], scalars++));
    }

    public int constant(float value) {
        return add(new Expr.Node(Fn.CONSTANT, new int[0], new float[] {value}, 0));
    }

    public void bind(long tensorId, int node) {
        bound.put(tensorId, node);
    }

    public boolean isBound(long tensorId) {
        return bound.containsKey(tensorId);
    }

    /**
     * Adds an op whose inputs are bound or external.
     *
     * @param rank     rank of the fused tensor (GenIndex's axis is relative to it)
     * @param external makes a leaf for an input not produced in the chain
     */
    public void add(Op op, int rank, ToIntFunction<LogicalTensor> external) {
        int[] in = new int[op.inputs().size()];
        for (int i = 0; i < in.length; i++) {
            LogicalTensor t = op.input(i);
            Integer n = bound.get(t.id());
            in[i] = n != null ? n : external.applyAsInt(t);
        }
        bind(op.output(0).id(), translate(op, in, rank));
    }

    private int translate(Op op, int[] in, int rank) {
        return switch (op.kind()) {
            case Add -> call(Fn.ADD, in);
            case Subtract -> call(Fn.SUB, in);
            case Multiply -> call(Fn.MUL, in);
            case Divide -> call(Fn.DIV, in);
            case Maximum -> call(Fn.MAX, in);
            case Minimum -> call(Fn.MIN, in);
            case SquaredDifference -> call(Fn.SQUARED_DIFF, in);
            case PartitaPow -> call(Fn.POWER, in);
            case GreaterEqual -> call(Fn.GE, in);
            case Select -> call(Fn.SELECT, in);
            case ReLU -> call(Fn.RELU, in);
            case Sigmoid -> call(Fn.SIGMOID, in);
            case Tanh -> call(Fn.TANH, in);
            case Exp -> call(Fn.EXP, in);
            case Log -> call(Fn.LOG, in);
            case Abs -> call(Fn.ABS, in);
            case Sqrt -> call(Fn.SQRT, in);
            case Square -> call(Fn.SQUARE, in);
            case Reciprocal -> call(Fn.RECIPROCAL, in);
            case Round -> call(Fn.ROUND, in);
            case PartitaErf -> call(Fn.ERF, in);
            case Mish -> call(Fn.MISH, in);
            case HardSwish -> call(Fn.HARD_SWISH, in);
            case GELU -> call(op.attr("mode").map(Object::toString).orElse("gelu_erf").contains("tanh") ? Fn.GELU_TANH
                    : Fn.GELU_ERF, in);
            case Elu -> call(Fn.ELU, in, op.floatAttr("alpha"));
            case LeakyReLU -> call(Fn.LEAKY_RELU, in, op.floatAttr("alpha"));
            case SoftPlus -> call(Fn.SOFT_PLUS, in, op.hasAttr("beta") ? op.floatAttr("beta") : 1f);
            case Pow -> call(Fn.POW, in, op.floatAttr("beta"));
            case Clamp -> call(Fn.CLAMP, in, op.floatAttr("min"), op.floatAttr("max"));
            case HardSigmoid -> call(Fn.HARD_SIGMOID, in, op.floatAttr("alpha"), op.floatAttr("beta"));
            case GenIndex -> {
                long axis = op.longAttr("axis");
                long a = axis < 0 ? axis + rank : axis;
                if (a == rank - 1) {
                    yield add(new Expr.Node(Fn.COL_INDEX, new int[0], new float[0], 0));
                }
                if (a == rank - 2) {
                    yield add(new Expr.Node(Fn.ROW_INDEX, new int[0], new float[0], 0));
                }
                throw new IllegalArgumentException(op.describe() + ": index along axis " + axis
                        + " of a rank-" + rank + " tensor; fused code indexes rows and columns only");
            }
            default -> throw new IllegalArgumentException(op.describe() + " is not an elementwise op");
        };
    }

    /** A function of earlier nodes without attributes (what fused code adds around the graph's ops). */
    public int apply(Fn fn, int... in) {
        return call(fn, in);
    }

    private int call(Fn fn, int[] in, float... attrs) {
        if (in.length != fn.arity()) {
            throw new IllegalArgumentException(fn + " takes " + fn.arity() + " inputs, got " + in.length);
        }
        return add(new Expr.Node(fn, in, attrs, 0));
    }

    private int add(Expr.Node n) {
        nodes.add(n);
        return nodes.size() - 1;
    }

    /** The expression computing the tensor's value (its node must be the last one added). */
    public Expr build(long resultTensorId) {
        Integer r = bound.get(resultTensorId);
        if (r == null) {
            throw new IllegalArgumentException("tensor " + resultTensorId + " is not computed by the chain");
        }
        if (r != nodes.size() - 1) {
            // an identity-preserving copy keeps "the last node is the result" without reordering
            add(new Expr.Node(Fn.MAX, new int[] {r, r}, new float[0], 0));
        }
        return new Expr(nodes, Math.max(sources, 1), scalars);
    }
}
