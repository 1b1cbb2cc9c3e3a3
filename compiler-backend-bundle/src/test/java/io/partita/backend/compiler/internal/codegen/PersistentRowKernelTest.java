package io.partita.backend.compiler.internal.codegen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.Fn;
import io.partita.cache.CacheManager;
import io.partita.cache.DeviceKind;
import io.partita.cache.PersistentCache;
import io.partita.cache.PersistentCacheStats.Reject;
import io.partita.runtime.StandaloneRuntime;

/** Generated classes in the persistent cache: stored by one generator, loaded by the next, damage never run. */
class PersistentRowKernelTest {
    private static final int VL = VectorMath.S.length();
    private static final String BACKEND = "compiler 1";

    @TempDir
    Path tmp;

    /** A fresh cache manager (as a new process would have) over the test's directory, cpu enabled. */
    private PersistentCache store() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        caches.setPersistentCacheDirectory(tmp.resolve("cache"));
        caches.setPersistentCacheCapacity(16);
        caches.setPersistentCacheEnabled(DeviceKind.CPU, true);
        return caches.persistentCache();
    }

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

    @Test
    void aSecondGeneratorLoadsTheStoredClassAndComputesTheSame() {
        Expr e = expr();
        PersistentCache first = store();
        RowKernelGenerator a = new RowKernelGenerator(first, BACKEND);
        RowKernel generated = a.kernel(e, 0, "test");
        assertEquals(1, a.stats().generated());
        assertEquals(0, a.stats().loaded());
        assertEquals(1, first.stats().stores());

        PersistentCache second = store();
        RowKernelGenerator b = new RowKernelGenerator(second, BACKEND);
        RowKernel loaded = b.kernel(e, 0, "test");
        assertEquals(1, b.stats().loaded(), b.stats().toString());
        assertEquals(0, b.stats().generated(), b.stats().toString());
        assertEquals(0, b.stats().fallbacks());
        assertTrue(loaded.getClass().isHidden());
        assertEquals(1, second.stats().hits());
        float[] viaLoaded = run(loaded, 5 * VL + 3);
        assertArrayEquals(run(new InterpretedRowKernel(e), 5 * VL + 3), viaLoaded, 0f);
        assertArrayEquals(run(generated, 5 * VL + 3), viaLoaded, 0f);
        // in memory from now on: no second lookup
        b.kernel(e, 0, "test");
        assertEquals(1, second.stats().hits() + second.stats().misses());
    }

    @Test
    void withoutCpuEnabledNothingIsStored() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        caches.setPersistentCacheDirectory(tmp.resolve("cache"));
        caches.setPersistentCacheCapacity(16);
        caches.setPersistentCacheEnabled(DeviceKind.CPU, false);
        RowKernelGenerator g = new RowKernelGenerator(caches.persistentCache(), BACKEND);
        g.kernel(expr(), 0, "test");
        assertEquals(0, caches.persistentCache().stats().stores());
        assertEquals(0, caches.persistentCache().stats().misses());
    }

    @Test
    void aDamagedEntryFailsItsChecksumAndIsGeneratedAgain() throws IOException {
        Expr e = expr();
        new RowKernelGenerator(store(), BACKEND).kernel(e, 0, "test");
        Path kernelBin = onlyKernelBin();
        byte[] b = Files.readAllBytes(kernelBin);
        for (int i = b.length / 2; i < b.length / 2 + 4; i++) {
            b[i] ^= (byte) 0xA5;
        }
        Files.write(kernelBin, b);

        PersistentCache second = store();
        RowKernelGenerator g = new RowKernelGenerator(second, BACKEND);
        RowKernel k = g.kernel(e, 0, "test");
        assertEquals(0, g.stats().loaded());
        assertEquals(1, g.stats().generated());
        assertEquals(0, g.stats().fallbacks());
        assertEquals(1, second.stats().rejects().get(Reject.CHECKSUM), second.stats().describe());
        assertEquals(1, second.stats().stores(), "the fresh class is stored again");
        assertArrayEquals(run(new InterpretedRowKernel(e), 4 * VL), run(k, 4 * VL), 0f);
        RowKernelGenerator third = new RowKernelGenerator(store(), BACKEND);
        third.kernel(e, 0, "test");
        assertEquals(1, third.stats().loaded());
    }

    /** Intact entries (the checksum passes) whose bytes are no class the JVM accepts: refused, never run. */
    @Test
    void storedBytesTheJvmRefusesAreReplacedByAFreshClass() {
        Expr e = expr();
        byte[] key = RowKernelGenerator.persistentKey(e, 0, BACKEND);
        byte[] almostAClass = RowKernelGenerator.generate(e, 0);
        almostAClass[almostAClass.length / 2] ^= 0x5a;
        almostAClass[almostAClass.length / 2 + 1] ^= 0x33;
        List<List<byte[]>> garbage = List.of(
                List.of("certainly not a class file".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                List.of(almostAClass),
                List.of(RowKernelGenerator.generate(e, 0), new byte[3])); // two blobs where one class belongs
        for (List<byte[]> blobs : garbage) {
            PersistentCache s = store();
            s.remove(DeviceKind.CPU, key); // the fresh class the previous round stored
            assertTrue(s.store(DeviceKind.CPU, key, blobs));
            long refusedBefore = s.stats().rejects().get(Reject.REFUSED);
            RowKernelGenerator g = new RowKernelGenerator(s, BACKEND);
            RowKernel k = g.kernel(e, 0, "partition 3");
            assertEquals(1, g.stats().refused(), g.stats().toString());
            assertEquals(0, g.stats().loaded());
            assertEquals(1, g.stats().generated());
            assertEquals(0, g.stats().fallbacks(), "the fresh class is fine");
            assertTrue(k.getClass().isHidden());
            assertArrayEquals(run(new InterpretedRowKernel(e), 3 * VL + 1), run(k, 3 * VL + 1), 0f);
            assertEquals(refusedBefore + 1, s.stats().rejects().get(Reject.REFUSED), s.stats().describe());
            RowKernelGenerator next = new RowKernelGenerator(store(), BACKEND);
            next.kernel(e, 0, "partition 3");
            assertEquals(1, next.stats().loaded(), "the refused entry was replaced");
            assertEquals(0, next.stats().refused());
        }
    }

    @Test
    void theKeyCoversTheWholeExpressionTheRowLengthAndTheBackend() {
        Expr e = expr();
        byte[] base = RowKernelGenerator.persistentKey(e, 0, BACKEND);
        assertArrayEquals(base, RowKernelGenerator.persistentKey(expr(), 0, BACKEND), "equal expressions, equal keys");
        assertFalse(Arrays.equals(base, RowKernelGenerator.persistentKey(e, 4 * VL, BACKEND)));
        assertFalse(Arrays.equals(base, RowKernelGenerator.persistentKey(e, 0, "compiler 2")));
        List<Expr.Node> nodes = new ArrayList<>(e.nodes());
        nodes.set(3, new Expr.Node(Fn.CONSTANT, new int[0], new float[] {Math.nextUp(0.5f)}, 0));
        assertFalse(Arrays.equals(base, RowKernelGenerator.persistentKey(new Expr(nodes, 2, 1), 0, BACKEND)));
        nodes = new ArrayList<>(e.nodes());
        nodes.set(7, new Expr.Node(Fn.SUB, new int[] {1, 6}, new float[0], 0));
        assertFalse(Arrays.equals(base, RowKernelGenerator.persistentKey(new Expr(nodes, 2, 1), 0, BACKEND)));
        nodes = new ArrayList<>(e.nodes());
        nodes.set(1, leaf(Fn.SOURCE, 0));
        assertFalse(Arrays.equals(base, RowKernelGenerator.persistentKey(new Expr(nodes, 2, 1), 0, BACKEND)));
        String text = new String(base, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertTrue(text.contains(Runtime.version().toString()), "the JVM version is part of the key");
    }

    private Path onlyKernelBin() throws IOException {
        try (Stream<Path> s = Files.walk(tmp.resolve("cache"))) {
            List<Path> bins = s.filter(p -> p.getFileName().toString().equals("kernel.bin")).toList();
            assertEquals(1, bins.size(), bins.toString());
            return bins.get(0);
        }
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
