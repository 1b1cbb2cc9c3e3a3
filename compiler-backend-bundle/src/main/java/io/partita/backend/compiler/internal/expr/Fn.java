package io.partita.backend.compiler.internal.expr;

/**
 * The functions of a fused elementwise expression. Every value is a float vector (comparisons give
 * 0 or 1), so generated code is one static call per node into {@code VectorMath}, whose method is
 * named by {@link #method()}. Leaves read their value from the kernel's arguments.
 */
public enum Fn {
    /** Leaf: a staged row ({@code src[index]} from {@code off[index]}). */
    SOURCE(0, 0),
    /** Leaf: a value uniform over the row ({@code scalars[index]}). */
    SCALAR(0, 0),
    /** Leaf: the row index (the second-to-last dim of the fused tensor). */
    ROW_INDEX(0, 0),
    /** Leaf: the column index (the last dim). */
    COL_INDEX(0, 0),
    /** Leaf: a constant from the graph ({@code attrs[0]}). */
    CONSTANT(0, 1),

    RELU(1, 0), SIGMOID(1, 0), TANH(1, 0), EXP(1, 0), LOG(1, 0), ABS(1, 0), SQRT(1, 0), SQUARE(1, 0),
    RECIPROCAL(1, 0), ROUND(1, 0), ERF(1, 0), GELU_ERF(1, 0), GELU_TANH(1, 0), MISH(1, 0), HARD_SWISH(1, 0),
    ELU(1, 1), LEAKY_RELU(1, 1), SOFT_PLUS(1, 1), POW(1, 1), CLAMP(1, 2), HARD_SIGMOID(1, 2),

    ADD(2, 0), SUB(2, 0), MUL(2, 0), DIV(2, 0), MAX(2, 0), MIN(2, 0), SQUARED_DIFF(2, 0), POWER(2, 0),
    GE(2, 0),
    /** {@code args[0] != 0 ? args[1] : args[2]}. */
    SELECT(3, 0);

    private final int arity;
    private final int attrs;

    Fn(int arity, int attrs) {
        this.arity = arity;
        this.attrs = attrs;
    }

    public int arity() {
        return arity;
    }

    /** Float attributes passed after the vector arguments (alpha, beta, min/max). */
    public int attrCount() {
        return attrs;
    }

    public boolean isLeaf() {
        return arity == 0;
    }

    /** The {@code VectorMath} method computing this function. */
    public String method() {
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char c : name().toLowerCase(java.util.Locale.ROOT).toCharArray()) {
            if (c == '_') {
                up = true;
            } else {
                b.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return b.toString();
    }
}
