package io.partita.backend.compiler.internal.codegen;

import java.util.List;

import io.partita.backend.compiler.internal.expr.Expr;
import jdk.incubator.vector.FloatVector;

/** Walks the expression per vector: the generated code's oracle in tests. */
public final class InterpretedRowKernel implements RowKernel {
    private final Expr.Node[] nodes;

    public InterpretedRowKernel(Expr expr) {
        List<Expr.Node> n = expr.nodes();
        this.nodes = n.toArray(new Expr.Node[0]);
    }

    @Override
    public void apply(float[][] src, int[] off, float[] scalars, int n, int row, int col) {
        FloatVector[] v = new FloatVector[nodes.length];
        int vl = VectorMath.S.length();
        for (int j = 0; j < n; j += vl) {
            for (int i = 0; i < nodes.length; i++) {
                v[i] = eval(nodes[i], v, src, off, scalars, j, row, col);
            }
            v[nodes.length - 1].intoArray(src[0], off[0] + j);
        }
    }

    private static FloatVector eval(Expr.Node n, FloatVector[] v, float[][] src, int[] off, float[] scalars, int j,
            int row, int col) {
        int[] a = n.args();
        float[] t = n.attrs();
        return switch (n.fn()) {
            case SOURCE -> FloatVector.fromArray(VectorMath.S, src[n.index()], off[n.index()] + j);
            case SCALAR -> VectorMath.broadcast(scalars[n.index()]);
            case ROW_INDEX -> VectorMath.broadcast(row);
            case COL_INDEX -> VectorMath.index(col + j);
            case CONSTANT -> VectorMath.broadcast(t[0]);
            case RELU -> VectorMath.relu(v[a[0]]);
            case SIGMOID -> VectorMath.sigmoid(v[a[0]]);
            case TANH -> VectorMath.tanh(v[a[0]]);
            case EXP -> VectorMath.exp(v[a[0]]);
            case LOG -> VectorMath.log(v[a[0]]);
            case ABS -> VectorMath.abs(v[a[0]]);
            case SQRT -> VectorMath.sqrt(v[a[0]]);
            case SQUARE -> VectorMath.square(v[a[0]]);
            case RECIPROCAL -> VectorMath.reciprocal(v[a[0]]);
            case ROUND -> VectorMath.round(v[a[0]]);
            case ERF -> VectorMath.erf(v[a[0]]);
            case GELU_ERF -> VectorMath.geluErf(v[a[0]]);
            case GELU_TANH -> VectorMath.geluTanh(v[a[0]]);
            case MISH -> VectorMath.mish(v[a[0]]);
            case HARD_SWISH -> VectorMath.hardSwish(v[a[0]]);
            case ELU -> VectorMath.elu(v[a[0]], t[0]);
            case LEAKY_RELU -> VectorMath.leakyRelu(v[a[0]], t[0]);
            case SOFT_PLUS -> VectorMath.softPlus(v[a[0]], t[0]);
            case POW -> VectorMath.pow(v[a[0]], t[0]);
            case CLAMP -> VectorMath.clamp(v[a[0]], t[0], t[1]);
            case HARD_SIGMOID -> VectorMath.hardSigmoid(v[a[0]], t[0], t[1]);
            case ADD -> VectorMath.add(v[a[0]], v[a[1]]);
            case SUB -> VectorMath.sub(v[a[0]], v[a[1]]);
            case MUL -> VectorMath.mul(v[a[0]], v[a[1]]);
            case DIV -> VectorMath.div(v[a[0]], v[a[1]]);
            case MAX -> VectorMath.max(v[a[0]], v[a[1]]);
            case MIN -> VectorMath.min(v[a[0]], v[a[1]]);
            case SQUARED_DIFF -> VectorMath.squaredDiff(v[a[0]], v[a[1]]);
            case POWER -> VectorMath.power(v[a[0]], v[a[1]]);
            case GE -> VectorMath.ge(v[a[0]], v[a[1]]);
            case SELECT -> VectorMath.select(v[a[0]], v[a[1]], v[a[2]]);
        };
    }
}
