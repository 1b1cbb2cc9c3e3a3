package io.partita.backend.dnnl.internal.postops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.partita.graph.OpKind;

/**
 * The general chain against a scalar evaluation of the same steps: operands broadcast (stride 0),
 * contiguous (stride 1) and strided along the innermost dim (a transposed operand, gathered),
 * a chain on either side of a binary op, a Load, runs of a length no vector width divides,
 * ranges that start and end inside a row.
 */
class PostOpChainTest {
    private static final long[] DIMS = {3, 5, 37};
    private static final int N = 3 * 5 * 37;

    private static MemorySegment filled(Arena arena, int n, long seed) {
        MemorySegment s = arena.allocate(4L * n, 64);
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) r.nextGaussian());
        }
        return s;
    }

    private static long offset(long[] strides, int flat) {
        long off = 0;
        for (int d = DIMS.length - 1; d >= 0; d--) {
            off += (flat % DIMS[d]) * strides[d];
            flat /= (int) DIMS[d];
        }
        return off;
    }

    private static float op(OpKind k, float a, float b) {
        return switch (k) {
            case Add -> a + b;
            case Subtract -> a - b;
            case Multiply -> a * b;
            case Divide -> a / b;
            case Maximum -> Math.max(a, b);
            default -> Math.min(a, b);
        };
    }

    /** The chain element by element in plain float arithmetic. */
    private static float expected(List<PostOpChain.Step> steps, float v, MemorySegment[] ops, int flat) {
        for (PostOpChain.Step s : steps) {
            if (s instanceof PostOpChain.Act a) {
                v = a.activation().apply(v);
            } else if (s instanceof PostOpChain.Load l) {
                v = ops[l.operand()].getAtIndex(ValueLayout.JAVA_FLOAT, offset(l.strides(), flat));
            } else {
                PostOpChain.Bin b = (PostOpChain.Bin) s;
                float w = ops[b.operand()].getAtIndex(ValueLayout.JAVA_FLOAT, offset(b.strides(), flat));
                v = b.chainIsRight() ? op(b.kind(), w, v) : op(b.kind(), v, w);
            }
        }
        return v;
    }

    private static void check(List<PostOpChain.Step> steps, MemorySegment[] ops, Arena arena) {
        PostOpChain chain = new PostOpChain(DIMS, steps);
        // whole tensor at once, then pieces that start and end inside rows
        int[][] ranges = {{0, N}, {5, 50}, {50, 3}, {53, 150}, {203, N - 203}};
        for (int[] range : ranges) {
            MemorySegment out = filled(arena, N, 11);
            MemorySegment before = filled(arena, N, 11);
            chain.bind(ops).apply(out, 4L * range[0], range[0], range[1]);
            for (int i = 0; i < N; i++) {
                float in = before.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                boolean inside = i >= range[0] && i < range[0] + range[1];
                float want = inside ? expected(steps, in, ops, i) : in;
                assertEquals(want, out.getAtIndex(ValueLayout.JAVA_FLOAT, i), Math.ulp(want) * 4,
                        "element " + i + " of range " + range[0] + "+" + range[1] + " for " + steps);
            }
        }
    }

    @Test
    void broadcastContiguousAndStridedOperandsOnEitherSide() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment row = filled(arena, 37, 1); // [37]: stride 1 along the run, 0 across rows
            MemorySegment perImage = filled(arena, 3, 2); // [3,1,1]: one value per run
            MemorySegment transposed = filled(arena, N, 3); // [3,37,5] read as [3,5,37]: stride 5 along the run
            MemorySegment[] ops = {row, perImage, transposed};
            check(List.of(
                    new PostOpChain.Bin(OpKind.Add, 0, new long[] {0, 0, 1}, false),
                    new PostOpChain.Act(new Activation(OpKind.ReLU, 0, 0, false)),
                    new PostOpChain.Bin(OpKind.Multiply, 1, new long[] {1, 0, 0}, false),
                    new PostOpChain.Bin(OpKind.Subtract, 2, new long[] {185, 1, 5}, true),
                    new PostOpChain.Bin(OpKind.Divide, 1, new long[] {1, 0, 0}, true)), ops, arena);
        }
    }

    @Test
    void loadReplacesTheValueBeforeTheRestOfTheChain() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = filled(arena, N, 4);
            MemorySegment scalar = filled(arena, 1, 5);
            MemorySegment[] ops = {src, scalar};
            check(List.of(new PostOpChain.Load(0, new long[] {185, 37, 1}),
                    new PostOpChain.Act(new Activation(OpKind.Sigmoid, 0, 0, false)),
                    new PostOpChain.Bin(OpKind.Maximum, 1, new long[] {0, 0, 0}, false)), ops, arena);
            check(List.of(new PostOpChain.Load(1, new long[] {0, 0, 0}),
                    new PostOpChain.Bin(OpKind.Add, 0, new long[] {185, 1, 5}, false)), ops, arena);
        }
    }
}
