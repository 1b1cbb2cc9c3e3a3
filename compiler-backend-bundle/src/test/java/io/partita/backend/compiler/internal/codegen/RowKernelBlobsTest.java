package io.partita.backend.compiler.internal.codegen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static io.partita.backend.compiler.internal.SameResults.assertSameResults;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.Fn;

/**
 * Generated classes as cache blobs: recorded by one generator's compile, replayed by a fresh one (as a
 * new process would), and anything damaged or missing refused, never run.
 */
class RowKernelBlobsTest {
    private static final int VL = VectorMath.S.length();

    /** gelu(x * scalar + 0.5) - y, with a clamp attribute pair. */
    private static Expr expr() {
        List<Expr.Node> nodes = new ArrayList<>();
        nodes.add(leaf(Fn.SOURCE, 0));
        nodes.add(leaf(Fn.SOURCE, 1));
        nodes.add(leaf(Fn.SCALAR, 0));
        nodes.add(new Expr.Node(Fn.CONSTANT, new int[0], new float[] {0.5f}, 0));
        nodes.add(new Expr.Node(Fn.MUL, new int[] {0, 2}, new float[0], 0));
        nodes.add(new Expr.Node(Fn.ADD, new int[] {4, 3}, new float[0], 0));
        nodes.add(new Expr.Node(Fn.GELU_TANH, new int[] {5}, new float[0], 0));
        nodes.add(new Expr.Node(Fn.SUB, new int[] {6, 1}, new float[0], 0));
        nodes.add(new Expr.Node(Fn.CLAMP, new int[] {7}, new float[] {-2f, 3f}, 0));
        return new Expr(nodes, 2, 1);
    }

    /** The blobs of a compile asking for the expression at two row lengths. */
    private static List<byte[]> recorded(RowKernelGenerator g, Expr e) {
        try (RowKernelGenerator.Session s = g.record()) {
            g.kernel(e, 0, "test");
            g.kernel(e, 4 * VL, "test");
            g.kernel(e, 0, "test"); // asked twice, recorded once
            return s.blobs();
        }
    }

    @Test
    void aFreshGeneratorReplaysRecordedClassesAndComputesTheSame() {
        Expr e = expr();
        RowKernelGenerator a = new RowKernelGenerator();
        List<byte[]> blobs = recorded(a, e);
        assertEquals(2, blobs.size());
        assertEquals(2, a.stats().generated());
        // a later compile that finds the classes in memory still records them: its partition's blobs
        assertEquals(2, recorded(a, e).size());

        RowKernelGenerator b = new RowKernelGenerator();
        RowKernel loaded;
        try (RowKernelGenerator.Session s = b.replay(blobs)) {
            loaded = b.kernel(e, 0, "test");
            b.kernel(e, 4 * VL, "test");
            assertEquals(2, s.blobs().size(), "a compile from blobs gives the same blobs again");
        }
        assertEquals(2, b.stats().loaded(), b.stats().toString());
        assertEquals(0, b.stats().generated(), "nothing generated");
        assertTrue(loaded.getClass().isHidden());
        assertSameResults(run(new InterpretedRowKernel(e), 5 * VL + 3), run(loaded, 5 * VL + 3));
        // outside a session the generator generates as before
        b.kernel(e, 2 * VL, "test");
        assertEquals(1, b.stats().generated());
    }

    @Test
    void aClassMissingFromTheBlobsFailsTheReplayInsteadOfBeingGenerated() {
        Expr e = expr();
        List<byte[]> blobs = recorded(new RowKernelGenerator(), e);
        RowKernelGenerator g = new RowKernelGenerator();
        try (RowKernelGenerator.Session s = g.replay(blobs.subList(0, 1))) {
            g.kernel(e, 0, "partition 3");
            RowKernelGenerator.BlobRefusedException x = assertThrows(RowKernelGenerator.BlobRefusedException.class,
                    () -> g.kernel(e, 4 * VL, "partition 3"));
            assertTrue(x.getMessage().contains("partition 3: the blobs hold no class"), x.getMessage());
        }
        assertEquals(0, g.stats().generated());
    }

    /** Blobs whose class bytes the JVM refuses (an intact seal does not make bytes a valid class). */
    @Test
    void classBytesTheJvmRefusesAreNeverRun() {
        Expr e = expr();
        byte[] good = recorded(new RowKernelGenerator(), e).get(0);
        int keyLength = java.nio.ByteBuffer.wrap(good).getInt();
        byte[] almost = good.clone();
        int mid = 4 + keyLength + (good.length - 4 - keyLength) / 2;
        almost[mid] ^= 0x5a;
        almost[mid + 1] ^= 0x33;
        byte[] notAClass = Arrays.copyOf(good, 4 + keyLength + 20);
        for (byte[] bad : List.of(almost, notAClass)) {
            RowKernelGenerator g = new RowKernelGenerator();
            try (RowKernelGenerator.Session s = g.replay(List.of(bad))) {
                RowKernelGenerator.BlobRefusedException x = assertThrows(RowKernelGenerator.BlobRefusedException.class,
                        () -> g.kernel(e, 0, "partition 5"));
                assertTrue(x.getMessage().contains("the JVM refused the class blob"), x.getMessage());
            }
            assertEquals(0, g.stats().loaded());
            assertEquals(0, g.stats().generated(), "nor generated instead");
        }
    }

    @Test
    void aBlobThatIsNoKeyedClassIsRefusedByName() {
        RowKernelGenerator g = new RowKernelGenerator();
        for (byte[] bad : List.of(new byte[2], new byte[] {0, 0, 0, 9, 1, 2}, new byte[] {(byte) 0xff, 0, 0, 0})) {
            RowKernelGenerator.BlobRefusedException x = assertThrows(RowKernelGenerator.BlobRefusedException.class,
                    () -> g.replay(List.of(recorded(new RowKernelGenerator(), expr()).get(0), bad)));
            assertTrue(x.getMessage().startsWith("blob 1 of 2"), x.getMessage());
        }
    }

    @Test
    void theKeyCoversTheWholeExpressionAndTheRowLength() {
        Expr e = expr();
        byte[] base = RowKernelGenerator.classKey(e, 0);
        assertArrayEquals(base, RowKernelGenerator.classKey(expr(), 0), "equal expressions, equal keys");
        assertFalse(Arrays.equals(base, RowKernelGenerator.classKey(e, 4 * VL)));
        List<Expr.Node> nodes = new ArrayList<>(e.nodes());
        nodes.set(3, new Expr.Node(Fn.CONSTANT, new int[0], new float[] {Math.nextUp(0.5f)}, 0));
        assertFalse(Arrays.equals(base, RowKernelGenerator.classKey(new Expr(nodes, 2, 1), 0)));
        nodes = new ArrayList<>(e.nodes());
        nodes.set(7, new Expr.Node(Fn.SUB, new int[] {1, 6}, new float[0], 0));
        assertFalse(Arrays.equals(base, RowKernelGenerator.classKey(new Expr(nodes, 2, 1), 0)));
        nodes = new ArrayList<>(e.nodes());
        nodes.set(1, leaf(Fn.SOURCE, 0));
        assertFalse(Arrays.equals(base, RowKernelGenerator.classKey(new Expr(nodes, 2, 1), 0)));
        String text = new String(base, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertTrue(text.contains(Runtime.version().toString()), "the JVM version is part of the key");
    }

    private static Expr.Node leaf(Fn fn, int index) {
        return new Expr.Node(fn, new int[0], new float[0], index);
    }

    /** Applies the kernel to two seeded rows at offset 2 and returns the written row. */
    private static float[] run(RowKernel k, int n) {
        Random r = new Random(11);
        float[][] rows = new float[2][2 + n + VL];
        for (float[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                row[i] = (float) (r.nextGaussian() * 2);
            }
        }
        k.apply(rows, new int[] {2, 2}, new float[] {1.5f}, n, 3, 10);
        return Arrays.copyOfRange(rows[0], 2, 2 + n);
    }
}
