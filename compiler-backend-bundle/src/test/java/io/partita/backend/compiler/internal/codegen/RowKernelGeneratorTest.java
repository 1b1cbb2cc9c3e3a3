package io.partita.backend.compiler.internal.codegen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.Fn;

/** Generated kernels against the interpreter (same functions, walked per vector) and the verifier. */
class RowKernelGeneratorTest {
    private static final int VL = VectorMath.S.length();

    /** The second test run (-XX:MaxVectorSize=16) really runs 4-lane vectors. */
    @Test
    void runsAtTheExpectedVectorWidth() {
        String expected = System.getProperty("compiler.expectedVectorBits");
        if (expected != null) {
            assertEquals(Integer.parseInt(expected), VectorMath.S.vectorBitSize());
        }
    }

    @ParameterizedTest
    @EnumSource(Fn.class)
    void everyFunctionHasItsVectorMathMethod(Fn fn) {
        assertTrue(RowKernelGenerator.covers(fn), fn + " needs VectorMath." + fn.method());
    }

    /** Each non-leaf function applied to two staged rows, a scalar, a constant and the indices. */
    @ParameterizedTest
    @EnumSource(value = Fn.class, names = {"SOURCE", "SCALAR", "ROW_INDEX", "COL_INDEX", "CONSTANT"},
            mode = EnumSource.Mode.EXCLUDE)
    void generatedMatchesInterpretedForEveryFunction(Fn fn) {
        List<Expr.Node> nodes = new ArrayList<>();
        nodes.add(leaf(Fn.SOURCE, 0));
        nodes.add(leaf(Fn.SOURCE, 1));
        nodes.add(leaf(Fn.SCALAR, 0));
        nodes.add(new Expr.Node(Fn.CONSTANT, new int[0], new float[] {0.75f}, 0));
        nodes.add(leaf(Fn.COL_INDEX, 0));
        nodes.add(leaf(Fn.ROW_INDEX, 0));
        int[] args = switch (fn.arity()) {
            case 1 -> new int[] {0};
            case 2 -> new int[] {0, 1};
            default -> new int[] {4, 1, 2}; // select(col index, row 1, scalar)
        };
        float[] attrs = new float[fn.attrCount()];
        for (int i = 0; i < attrs.length; i++) {
            attrs[i] = i == 0 ? -0.5f : 0.5f;
        }
        nodes.add(new Expr.Node(fn, args, attrs, 0));
        // use every leaf so none is dead code: + constant * (col - row) * scalar * 0
        nodes.add(new Expr.Node(Fn.SUB, new int[] {4, 5}, new float[0], 0));
        nodes.add(new Expr.Node(Fn.MUL, new int[] {7, 3}, new float[0], 0));
        nodes.add(new Expr.Node(Fn.MUL, new int[] {8, 2}, new float[0], 0));
        nodes.add(new Expr.Node(Fn.ADD, new int[] {6, 9}, new float[0], 0));
        Expr e = new Expr(nodes, 2, 1);
        for (int staticN : new int[] {0, 3 * VL}) {
            RowKernelGenerator gen = new RowKernelGenerator();
            RowKernel k = gen.kernel(e, staticN, "test");
            assertEquals(0, gen.stats().rejected(), "generated code was rejected");
            assertTrue(k.getClass().isHidden());
            compare(e, k, 3 * VL, 42);
        }
    }

    @Test
    void longChainIsOnePass() {
        // x -> sigmoid -> * y -> gelu -> + 1 -> relu, twelve nodes deep
        List<Expr.Node> nodes = new ArrayList<>(List.of(leaf(Fn.SOURCE, 0), leaf(Fn.SOURCE, 1)));
        int last = 0;
        Fn[] chain = {Fn.SIGMOID, Fn.MUL, Fn.GELU_ERF, Fn.TANH, Fn.MUL, Fn.EXP, Fn.RELU, Fn.ABS, Fn.MUL, Fn.SQRT};
        for (Fn f : chain) {
            int[] a = f.arity() == 1 ? new int[] {last} : new int[] {last, 1};
            nodes.add(new Expr.Node(f, a, new float[0], 0));
            last = nodes.size() - 1;
        }
        Expr e = new Expr(nodes, 2, 0);
        RowKernelGenerator gen = new RowKernelGenerator();
        compare(e, gen.kernel(e, 0, "test"), 7 * VL, 7);
        assertSame(gen.kernel(e, 0, "test"), gen.kernel(e, 0, "test"), "equal expressions share one class");
        assertNotSame(gen.kernel(e, 0, "test"), gen.kernel(e, 7 * VL, "test"), "a static length is its own class");
        assertEquals(2, gen.stats().classes());
        assertTrue(gen.stats().bytes() > 0);
    }

    @Test
    void bytesTheJvmRefusesAreACompileErrorNamingThePartition() {
        Expr e = new Expr(List.of(leaf(Fn.SOURCE, 0), new Expr.Node(Fn.RELU, new int[] {0}, new float[0], 0)), 1, 0);
        RowKernelGenerator gen = new RowKernelGenerator();
        byte[] bytes = RowKernelGenerator.generate(e, 0);
        bytes[bytes.length / 2] ^= 0x5a; // damage the constant pool or the code
        bytes[bytes.length / 2 + 1] ^= 0x33;
        io.partita.graph.UnsupportedFeatureException x = org.junit.jupiter.api.Assertions.assertThrows(
                io.partita.graph.UnsupportedFeatureException.class, () -> gen.load(bytes, e, "partition 7 (eltwise)"));
        assertTrue(x.getMessage().startsWith("partition 7 (eltwise): the JVM rejected the code generated for"),
                x.getMessage());
        assertEquals(1, gen.stats().rejected());
        assertEquals(0, gen.stats().generated());
    }

    private static Expr.Node leaf(Fn fn, int index) {
        return new Expr.Node(fn, new int[0], new float[0], index);
    }

    private static void compare(Expr e, RowKernel generated, int n, long seed) {
        Random r = new Random(seed);
        int off = 5;
        float[][] a = new float[e.sources()][off + n];
        for (float[] s : a) {
            for (int i = 0; i < s.length; i++) {
                s[i] = (float) (r.nextGaussian() * 2);
            }
        }
        float[][] b = new float[a.length][];
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i].clone();
        }
        int[] offs = new int[a.length];
        java.util.Arrays.fill(offs, off);
        float[] scalars = {1.25f};
        generated.apply(a, offs, scalars, n, 3, 10);
        new InterpretedRowKernel(e).apply(b, offs, scalars, n, 3, 10);
        assertArrayEquals(b[0], a[0], 0f, e.nodes().toString());
    }
}
