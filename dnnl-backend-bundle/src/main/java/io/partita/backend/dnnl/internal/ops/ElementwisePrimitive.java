package io.partita.backend.dnnl.internal.ops;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.postops.Activation;
import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * An element-wise base op (activation, or binary with numpy broadcasting over any input strides)
 * and its post-ops, as one pass over the output in cache-sized blocks on all threads.
 */
public final class ElementwisePrimitive implements Primitive {
    private static final int BLOCK = 16 * 1024;

    /**
     * The whole computation as a chain starting with a load of the first source; negative operand
     * inputs are scales and shifts computed from BatchNorm parameters ({@link BatchNormAffine}).
     */
    public record Desc(long[] dims, PostOpChain chain, int[] operandInputs, BatchNormAffine[] affines) {
        public Desc(long[] dims, PostOpChain chain, int[] operandInputs) {
            this(dims, chain, operandInputs, new BatchNormAffine[0]);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Desc d && Arrays.equals(d.dims, dims) && d.chain.equals(chain)
                    && Arrays.equals(d.operandInputs, operandInputs) && Arrays.equals(d.affines, affines);
        }

        @Override
        public int hashCode() {
            return (Arrays.hashCode(dims) * 31 + chain.hashCode()) * 31 + Arrays.hashCode(operandInputs);
        }
    }

    public static Desc describe(Op base, List<LogicalTensor> inputs, LogicalTensor dst, PostOpChain post, int[] postInputs) {
        return describe(base, inputs, dst, post, postInputs, List.of());
    }

    /** As above; {@code affines} are the BatchNorms of the post-op chain (a BatchNorm base adds its own). */
    public static Desc describe(Op base, List<LogicalTensor> inputs, LogicalTensor dst, PostOpChain post, int[] postInputs,
            List<BatchNormAffine> affines) {
        List<BatchNormAffine> all = new ArrayList<>(affines);
        long[] out = dst.dims();
        List<PostOpChain.Step> steps = new ArrayList<>();
        List<Integer> operands = new ArrayList<>();
        LogicalTensor src0 = inputs.get(indexOf(inputs, base.input(0).id()));
        steps.add(new PostOpChain.Load(0, strides(src0, out)));
        operands.add(indexOf(inputs, src0.id()));
        if (base.kind() == io.partita.graph.OpKind.BatchNormInference) {
            int k = all.size();
            all.add(BatchNormAffine.of(base, inputs));
            long[] perChannel = new long[out.length];
            perChannel["NCX".equals(base.stringAttr("data_format")) ? 1 : out.length - 1] = 1;
            steps.add(new PostOpChain.Bin(io.partita.graph.OpKind.Multiply, 1, perChannel, false));
            operands.add(BatchNormAffine.scaleOperand(k));
            steps.add(new PostOpChain.Bin(io.partita.graph.OpKind.Add, 2, perChannel, false));
            operands.add(BatchNormAffine.shiftOperand(k));
        } else if (base.inputs().size() == 2) {
            LogicalTensor src1 = inputs.get(indexOf(inputs, base.input(1).id()));
            steps.add(new PostOpChain.Bin(base.kind(), 1, strides(src1, out), false));
            operands.add(indexOf(inputs, src1.id()));
        } else {
            steps.add(new PostOpChain.Act(Activation.of(base)));
        }
        int shift = operands.size();
        for (PostOpChain.Step s : post.steps()) {
            steps.add(s instanceof PostOpChain.Bin b ? new PostOpChain.Bin(b.kind(), b.operand() + shift, b.strides(),
                    b.chainIsRight()) : s);
        }
        for (int p : postInputs) {
            operands.add(p);
        }
        return new Desc(out, new PostOpChain(out, steps), operands.stream().mapToInt(Integer::intValue).toArray(),
                all.toArray(BatchNormAffine[]::new));
    }

    /** Strides of a tensor broadcast (numpy) over the output dims, from its memory strides. */
    static long[] strides(LogicalTensor t, long[] out) {
        long[] d = t.dims();
        long[] s = t.strides();
        long[] r = new long[out.length];
        for (int i = 0; i < d.length; i++) {
            int at = i + out.length - d.length;
            r[at] = d[i] == 1 && out[at] != 1 ? 0 : s[i];
        }
        return r;
    }

    private static int indexOf(List<LogicalTensor> ports, long id) {
        for (int i = 0; i < ports.size(); i++) {
            if (ports.get(i).id() == id) {
                return i;
            }
        }
        throw new IllegalStateException("tensor " + id + " is not a port");
    }

    private final Desc d;
    private final long total;

    public ElementwisePrimitive(Desc d) {
        this.d = d;
        this.total = Strided.product(d.dims, 0, d.dims.length);
    }

    @Override
    public void execute(Invocation inv) {
        PostOpChain.Bound chain = d.chain.bind(BatchNormAffine.operands(inv, d.operandInputs, d.affines, null));
        var out = inv.out(0);
        int blocks = (int) ((total + BLOCK - 1) / BLOCK);
        CpuTeam.RangeBody body = (b0, b1) -> {
            for (int b = b0; b < b1; b++) {
                long from = (long) b * BLOCK;
                int count = (int) Math.min(BLOCK, total - from);
                chain.apply(out, 4L * from, from, count);
            }
        };
        if (inv.pool() != null && blocks > 1) {
            inv.pool().parallelFor(blocks, body);
        } else {
            body.run(0, blocks);
        }
    }

    @Override
    public String toString() {
        return "elementwise " + Arrays.toString(d.dims) + " " + d.chain;
    }
}
