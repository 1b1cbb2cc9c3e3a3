package io.partita.backend.compiler.internal.expr;

import java.util.Arrays;
import java.util.List;

/**
 * A fused elementwise computation as a list of nodes in evaluation order; the last node is the
 * result, written over source 0. Value semantics (records compared by content) so equal
 * expressions share one generated class.
 *
 * @param nodes   nodes, each referring to earlier ones only
 * @param sources number of staged rows the kernel reads ({@code src[0]} is also the output)
 * @param scalars number of per-call scalars
 */
public record Expr(List<Node> nodes, int sources, int scalars) {

    public Expr {
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("an expression needs at least one node");
        }
        for (int i = 0; i < nodes.size(); i++) {
            for (int a : nodes.get(i).args()) {
                if (a < 0 || a >= i) {
                    throw new IllegalArgumentException("node " + i + " refers to node " + a + " not before it");
                }
            }
        }
    }

    public Node result() {
        return nodes.getLast();
    }

    // Written out: a record's generated equals/hashCode is bootstrapped on first use, which a compile
    // in a fresh JVM (an expression is the key of its generated class) would pay every time
    @Override
    public boolean equals(Object o) {
        return o instanceof Expr e && e.sources == sources && e.scalars == scalars && e.nodes.equals(nodes);
    }

    @Override
    public int hashCode() {
        return (nodes.hashCode() * 31 + sources) * 31 + scalars;
    }

    /**
     * One node.
     *
     * @param fn    the function
     * @param args  indices of earlier nodes, {@link Fn#arity()} of them
     * @param attrs float attributes, {@link Fn#attrCount()} of them
     * @param index which source or scalar a leaf reads
     */
    public record Node(Fn fn, int[] args, float[] attrs, int index) {
        public Node {
            if (args.length != fn.arity() || attrs.length != fn.attrCount()) {
                throw new IllegalArgumentException(fn + " takes " + fn.arity() + " arguments and " + fn.attrCount()
                        + " attributes, got " + args.length + " and " + attrs.length);
            }
            args = args.clone();
            attrs = attrs.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Node n && n.fn == fn && n.index == index && Arrays.equals(n.args, args)
                    && Arrays.equals(n.attrs, attrs);
        }

        @Override
        public int hashCode() {
            return (fn.hashCode() * 31 + Arrays.hashCode(args)) * 31 + Arrays.hashCode(attrs) + index;
        }

        @Override
        public String toString() {
            return fn + (fn.isLeaf() ? "#" + index : Arrays.toString(args)) + (attrs.length == 0 ? "" : Arrays.toString(attrs));
        }
    }
}
