package io.partita.gpu.internal.codegen;

import java.util.List;

import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * One step of an epilogue applied to the value {@code v} a kernel computed: a unary elementwise
 * op, or a binary op (or BiasAdd) with another operand read through its own strides.
 *
 * @param operand index of the extra operand among the epilogue's operands, -1 for a unary op
 * @param valueIsRhs the computed value is the binary op's input 1 (order matters for Subtract, Divide)
 */
public record PostOp(Op op, int operand, boolean valueIsRhs) {

    /** The statements applying {@code posts} to {@code v}; operand {@code j} is read as {@code load(j)}. */
    public static String epilogue(List<PostOp> posts, java.util.function.IntFunction<String> load) {
        StringBuilder s = new StringBuilder();
        for (PostOp p : posts) {
            s.append("    v = ");
            if (p.operand < 0) {
                s.append(Eltwise.unary(p.op, "v"));
            } else {
                String o = load.apply(p.operand);
                OpKind k = p.op.kind() == OpKind.BiasAdd ? OpKind.Add : p.op.kind();
                s.append(p.valueIsRhs ? Eltwise.binary(k, o, "v") : Eltwise.binary(k, "v", o));
            }
            s.append(";\n");
        }
        return s.toString();
    }
}
