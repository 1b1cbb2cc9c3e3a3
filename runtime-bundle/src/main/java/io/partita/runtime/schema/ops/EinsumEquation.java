package io.partita.runtime.schema.ops;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.partita.runtime.schema.Dims;

/**
 * An Einsum equation (ONNX's Einsum, numpy's subscripts), checked for syntax when parsed and
 * against the operands' ranks when bound. One term per operand, separated by commas; labels are the
 * letters a-z and A-Z; a term may hold one {@code ...}, standing for the dims its letters leave,
 * broadcast across operands from the right. With {@code ->} the output term is explicit; without it
 * the output is the {@code ...} dims, then the letters used exactly once, in ASCII order. A letter
 * repeated within an input term takes that input's diagonal; a letter absent from the output is
 * summed over. Whitespace is ignored.
 *
 * <p>Errors are {@link IllegalArgumentException}s naming the bad term or label; the schema and the
 * kernel turn them into errors naming the op.
 */
public final class EinsumEquation {
    /** Label ids: a letter is its char code; the k-th {@code ...} dim from the left is ELLIPSIS + k. */
    private static final int ELLIPSIS = 128;

    private final List<Term> inputs;
    private final Term output;

    /** The letters of a term and where its {@code ...} sits among them (-1: none). */
    private record Term(String letters, int ellipsisAt) {
        String text() {
            return ellipsisAt < 0 ? letters
                    : letters.substring(0, ellipsisAt) + "..." + letters.substring(ellipsisAt);
        }
    }

    private EinsumEquation(List<Term> inputs, Term output) {
        this.inputs = inputs;
        this.output = output;
    }

    /** Parses the equation's syntax; the operands are checked by {@link #bind}. */
    public static EinsumEquation parse(String equation) {
        String eq = equation.replaceAll("\\s", "");
        int arrow = eq.indexOf("->");
        if (arrow >= 0 && eq.indexOf("->", arrow + 2) >= 0) {
            throw new IllegalArgumentException("has more than one '->'");
        }
        String lhs = arrow < 0 ? eq : eq.substring(0, arrow);
        List<Term> ins = new ArrayList<>();
        String[] parts = lhs.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            ins.add(term(parts[i], "input term " + i));
        }
        Term out = null;
        if (arrow >= 0) {
            out = term(eq.substring(arrow + 2), "output term");
            String l = out.letters();
            for (int i = 0; i < l.length(); i++) {
                char c = l.charAt(i);
                if (l.indexOf(c) != i) {
                    throw new IllegalArgumentException("output term '" + out.text() + "' repeats label '" + c
                            + "'; expected each output label once");
                }
                boolean used = false;
                for (Term t : ins) {
                    used |= t.letters().indexOf(c) >= 0;
                }
                if (!used) {
                    throw new IllegalArgumentException("output label '" + c + "' appears in no input term");
                }
            }
        }
        return new EinsumEquation(List.copyOf(ins), out);
    }

    private static Term term(String s, String what) {
        StringBuilder letters = new StringBuilder();
        int ellipsisAt = -1;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
                letters.append(c);
            } else if (c == '.' && s.startsWith("...", i)) {
                if (ellipsisAt >= 0) {
                    throw new IllegalArgumentException(what + " '" + s + "' has two '...'; expected at most one");
                }
                ellipsisAt = letters.length();
                i += 2;
            } else {
                throw new IllegalArgumentException(what + " '" + s + "' has '" + c + "' at " + i
                        + "; expected letters a-z, A-Z and at most one '...'");
            }
        }
        return new Term(letters.toString(), ellipsisAt);
    }

    /** The number of input terms. */
    public int inputCount() {
        return inputs.size();
    }

    /** Binds the terms to operands of the given ranks. */
    public Plan bind(int[] ranks) {
        if (ranks.length != inputs.size()) {
            throw new IllegalArgumentException("has " + inputs.size() + " input term(s) but the op has "
                    + ranks.length + " input(s)");
        }
        int ellipsisRank = 0;
        for (int k = 0; k < ranks.length; k++) {
            Term t = inputs.get(k);
            int n = t.letters().length();
            if (t.ellipsisAt() < 0 && ranks[k] != n) {
                throw new IllegalArgumentException("input term " + k + " '" + t.text() + "' has " + n
                        + " label(s) but input " + k + " has rank " + ranks[k]);
            }
            if (t.ellipsisAt() >= 0 && ranks[k] < n) {
                throw new IllegalArgumentException("input term " + k + " '" + t.text() + "' needs rank >= " + n
                        + " but input " + k + " has rank " + ranks[k]);
            }
            if (t.ellipsisAt() >= 0) {
                ellipsisRank = Math.max(ellipsisRank, ranks[k] - n);
            }
        }
        int[][] labels = new int[ranks.length][];
        int[] uses = new int[ELLIPSIS];
        for (int k = 0; k < ranks.length; k++) {
            labels[k] = labelsOf(inputs.get(k), ranks[k], ellipsisRank);
            for (char c : inputs.get(k).letters().toCharArray()) {
                uses[c]++;
            }
        }
        int[] out;
        if (output != null) {
            if (ellipsisRank > 0 && output.ellipsisAt() < 0) {
                throw new IllegalArgumentException("the inputs' '...' stand for " + ellipsisRank
                        + " dim(s) but output term '" + output.text() + "' has no '...'");
            }
            out = labelsOf(output, output.letters().length() + (output.ellipsisAt() < 0 ? 0 : ellipsisRank),
                    ellipsisRank);
        } else {
            List<Integer> o = new ArrayList<>();
            for (int e = 0; e < ellipsisRank; e++) {
                o.add(ELLIPSIS + e);
            }
            for (int c = 0; c < ELLIPSIS; c++) {
                if (uses[c] == 1) {
                    o.add(c);
                }
            }
            out = o.stream().mapToInt(Integer::intValue).toArray();
        }
        return new Plan(labels, out);
    }

    private static int[] labelsOf(Term t, int rank, int ellipsisRank) {
        int[] l = new int[rank];
        int e = rank - t.letters().length();
        int at = t.ellipsisAt() < 0 ? t.letters().length() : t.ellipsisAt();
        for (int i = 0; i < at; i++) {
            l[i] = t.letters().charAt(i);
        }
        for (int j = 0; j < e; j++) {
            // Right-aligned: an operand with fewer '...' dims broadcasts against the leading ones.
            l[at + j] = ELLIPSIS + ellipsisRank - e + j;
        }
        for (int i = at; i < t.letters().length(); i++) {
            l[i + e] = t.letters().charAt(i);
        }
        return l;
    }

    private static String labelName(int label) {
        return label < ELLIPSIS ? "label '" + (char) label + "'" : "'...' dim " + (label - ELLIPSIS);
    }

    /**
     * The equation bound to operand ranks: each operand dim's label, the output's labels, and every
     * label in loop order (the output's first, then the summed ones).
     */
    public static final class Plan {
        private final int[][] inputLabels;
        private final int[] outputLabels;
        private final int[] order;

        Plan(int[][] inputLabels, int[] outputLabels) {
            this.inputLabels = inputLabels;
            this.outputLabels = outputLabels;
            List<Integer> all = new ArrayList<>();
            for (int l : outputLabels) {
                all.add(l);
            }
            for (int[] in : inputLabels) {
                for (int l : in) {
                    if (!all.contains(l)) {
                        all.add(l);
                    }
                }
            }
            this.order = all.stream().mapToInt(Integer::intValue).toArray();
        }

        /** Every label in loop order: the output's labels first, then the summed ones. */
        public int[] order() {
            return order.clone();
        }

        public int[] inputLabels(int k) {
            return inputLabels[k].clone();
        }

        public int outputRank() {
            return outputLabels.length;
        }

        /**
         * The size of each label of {@link #order()}: a letter's dims must agree across its uses; a
         * {@code ...} dim of 1 broadcasts. Unknown dims stay unknown unless another use knows them.
         */
        public long[] labelSizes(long[][] dims) {
            long[] size = new long[order.length];
            boolean[] seen = new boolean[order.length];
            for (int k = 0; k < inputLabels.length; k++) {
                for (int d = 0; d < inputLabels[k].length; d++) {
                    int l = inputLabels[k][d];
                    int p = position(l);
                    long v = dims[k][d];
                    if (!seen[p]) {
                        seen[p] = true;
                        size[p] = v;
                        continue;
                    }
                    Long m;
                    if (l >= ELLIPSIS && (v == 1 || size[p] == 1)) {
                        m = v == 1 ? size[p] : v;
                    } else {
                        m = Dims.merge(size[p], v);
                    }
                    if (m == null) {
                        throw new IllegalArgumentException(labelName(l) + " has size " + size[p]
                                + " in one use but " + v + " in input " + k + " dim " + d);
                    }
                    size[p] = m;
                }
            }
            return size;
        }

        /** The output dims for label sizes from {@link #labelSizes}. */
        public long[] outputDims(long[] sizes) {
            return Arrays.copyOf(sizes, outputLabels.length);
        }

        /** The position of a label in {@link #order()}. */
        public int position(int label) {
            for (int i = 0; i < order.length; i++) {
                if (order[i] == label) {
                    return i;
                }
            }
            throw new IllegalStateException("label " + label + " is not in " + Arrays.toString(order));
        }

        @Override
        public String toString() {
            return Arrays.deepToString(inputLabels) + " -> " + Arrays.toString(outputLabels);
        }
    }
}
