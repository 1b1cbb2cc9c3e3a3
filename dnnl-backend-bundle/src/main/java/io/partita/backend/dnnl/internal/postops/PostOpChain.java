package io.partita.backend.dnnl.internal.postops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

import io.partita.graph.OpKind;
import jdk.incubator.vector.FloatVector;

/**
 * Activations and binary ops applied, in order, to a dense f32 output while it is in cache. A
 * binary step reads its other operand through per-dimension strides over the output's dims (0
 * where it broadcasts), so numpy broadcasting and per-channel biases are the same thing here.
 * Immutable: operands are bound per execution with {@link #bind}.
 */
public final class PostOpChain {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    /** Per thread: a block of a strided operand, gathered. */
    private static final ThreadLocal<float[]> GATHERED = ThreadLocal.withInitial(() -> new float[256]);

    /** One step of the chain. */
    public sealed interface Step permits Act, Bin, Load {
    }

    /** Replaces the value by an operand (the first step of element-wise primitives: the source read). */
    public record Load(int operand, long[] strides) implements Step {
        public Load {
            strides = strides.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Load l && l.operand == operand && Arrays.equals(l.strides, strides);
        }

        @Override
        public int hashCode() {
            return operand * 31 + Arrays.hashCode(strides);
        }
    }

    /** An activation. */
    public record Act(Activation activation) implements Step {
    }

    /**
     * A binary op with operand {@code operand} (index into the bound operands), strides in elements
     * over the output dims, and whether the chain value is the op's right-hand side.
     */
    public record Bin(OpKind kind, int operand, long[] strides, boolean chainIsRight) implements Step {
        public Bin {
            strides = strides.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Bin b && b.kind == kind && b.operand == operand && b.chainIsRight == chainIsRight
                    && Arrays.equals(b.strides, strides);
        }

        @Override
        public int hashCode() {
            return (kind.hashCode() * 31 + operand) * 31 + Arrays.hashCode(strides) + (chainIsRight ? 1 : 0);
        }
    }

    public static final PostOpChain EMPTY = new PostOpChain(new long[0], List.of());

    private final long[] dims;
    private final List<Step> steps;
    private final Step[] stepArray;

    public PostOpChain(long[] outputDims, List<Step> steps) {
        this.dims = outputDims.clone();
        this.steps = List.copyOf(steps);
        this.stepArray = this.steps.toArray(Step[]::new);
    }

    public boolean isEmpty() {
        return steps.isEmpty();
    }

    public List<Step> steps() {
        return steps;
    }

    /** Strides of an operand of dims {@code operand} broadcast (numpy, right-aligned) to {@code out}. */
    public static long[] broadcastStrides(long[] out, long[] operand) {
        long[] strides = new long[out.length];
        long acc = 1;
        for (int i = operand.length - 1; i >= 0; i--) {
            int o = i + out.length - operand.length;
            strides[o] = operand[i] == 1 && out[o] != 1 ? 0 : acc;
            acc *= operand[i];
        }
        return strides;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PostOpChain c && Arrays.equals(c.dims, dims) && c.steps.equals(steps);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(dims) * 31 + steps.hashCode();
    }

    @Override
    public String toString() {
        return "PostOps" + steps;
    }

    /** The chain with its operands for one execution. */
    public Bound bind(MemorySegment[] operands) {
        return new Bound(operands);
    }

    /** A chain bound to its operands: applies to any contiguous range of the output. */
    public final class Bound {
        private final MemorySegment[] operands;

        Bound(MemorySegment[] operands) {
            this.operands = operands;
        }

        /**
         * Applies the chain to {@code count} consecutive output elements starting at flat (row-major)
         * index {@code flat}, stored at byte offset {@code off} of {@code out}.
         */
        public void apply(MemorySegment out, long off, long flat, int count) {
            int rank = dims.length;
            long inner = rank == 0 ? 1 : dims[rank - 1];
            int done = 0;
            while (done < count) {
                long f = flat + done;
                int run = (int) Math.min(count - done, inner - (f % inner));
                applyRun(out, off + 4L * done, f, run);
                done += run;
            }
        }

        /**
         * A run inside one innermost line: operands advance by their last stride (0 or not). Step by
         * step over the whole run, each step one of {@link InPlace}'s small loops: carrying a vector
         * through a loop over the steps passed it to calls C2 did not always inline, which boxed it
         * on the heap (in some processes a per-op attention's Divide and Add ran 15 ms instead of 1
         * allocating a float[] per vector).
         */
        private void applyRun(MemorySegment out, long off, long flat, int run) {
            // Offsets are computed step by step, not gathered into arrays first: this runs once per
            // GEMM row from the pool's threads, and per-call arrays were most of a BERT layer's
            // steady-state garbage (C2 does not scalar-replace them across the step calls).
            int last = dims.length - 1;
            for (Step st : stepArray) {
                if (st instanceof Act a) {
                    InPlace.activate(a.activation(), out, off, run);
                } else if (st instanceof Load l) {
                    load(operands[l.operand()], offsetOf(l.strides, flat), last < 0 ? 0 : l.strides[last], out, off, run);
                } else {
                    Bin b = (Bin) st;
                    binary(b, operands[b.operand()], offsetOf(b.strides, flat), last < 0 ? 0 : b.strides[last], out, off, run);
                }
            }
        }

        /** Replaces the run by operand values from element {@code base}, {@code stride} apart. */
        private static void load(MemorySegment seg, long base, long stride, MemorySegment out, long off, int run) {
            if (stride == 0) {
                float v = seg.get(F, 4L * base);
                for (int q = 0; q < run; q++) {
                    out.set(F, off + 4L * q, v);
                }
            } else if (stride == 1) {
                MemorySegment.copy(seg, 4L * base, out, off, 4L * run);
            } else {
                for (int q = 0; q < run; q++) {
                    out.set(F, off + 4L * q, seg.get(F, 4L * (base + q * stride)));
                }
            }
        }

        private static void binary(Bin b, MemorySegment seg, long base, long stride, MemorySegment out, long off,
                int run) {
            if (stride == 0) {
                InPlace.binaryScalar(b.kind(), b.chainIsRight(), seg.get(F, 4L * base), out, off, run);
            } else if (stride == 1) {
                InPlace.binaryRun(b.kind(), b.chainIsRight(), seg, 4L * base, out, off, run);
            } else {
                // a strided operand: gathered block by block into an array the step's loop reads
                float[] block = GATHERED.get();
                for (int q0 = 0; q0 < run; q0 += block.length) {
                    int m = Math.min(block.length, run - q0);
                    for (int q = 0; q < m; q++) {
                        block[q] = seg.get(F, 4L * (base + (q0 + q) * stride));
                    }
                    InPlace.binaryArray(b.kind(), b.chainIsRight(), block, 0, out, off + 4L * q0, m);
                }
            }
        }

        private long offsetOf(long[] strides, long flat) {
            long off = 0;
            for (int d = dims.length - 1; d >= 0; d--) {
                long idx = flat % dims[d];
                flat /= dims[d];
                off += idx * strides[d];
            }
            return off;
        }

    }

    static FloatVector binary(OpKind kind, FloatVector a, FloatVector b) {
        return switch (kind) {
            case Add -> a.add(b);
            case Subtract -> a.sub(b);
            case Multiply -> a.mul(b);
            case Divide -> a.div(b);
            case Maximum -> a.max(b);
            case Minimum -> a.min(b);
            default -> throw new IllegalStateException("no binary post-op " + kind);
        };
    }
}
