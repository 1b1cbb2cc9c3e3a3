package io.partita.backend.dnnl.internal.gemm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every way of packing B gives the panel layout the kernels read: panel p, row kk, column j at
 * {@code (p * k + kk) * NR + j}, a last panel's idle columns zero.
 */
class PackedBTest {

    /** The layout, element by element: B's element (kk, j) is {@code value(kk, j)}. */
    private static float[] expected(int k, int n, java.util.function.IntBinaryOperator index, float[] values) {
        int nr = Sgemm.NR;
        float[] out = new float[(int) PackedB.packedLength(k, n)];
        for (int j = 0; j < n; j++) {
            for (int kk = 0; kk < k; kk++) {
                out[(j / nr * k + kk) * nr + j % nr] = values[index.applyAsInt(kk, j)];
            }
        }
        return out;
    }

    private static float[] values(int count) {
        float[] v = new float[count];
        for (int i = 0; i < v.length; i++) {
            v[i] = i % 89 - 44.5f;
        }
        return v;
    }

    @ParameterizedTest(name = "{0}x{1}")
    @CsvSource({"1,1", "7,5", "27,16", "147,64", "300,33", "1100,40"})
    void everyLayoutPacksTheSamePanels(int k, int n) {
        float[] v = values(k * n);
        float[] rowMajor = expected(k, n, (kk, j) -> kk * n + j, v);
        float[] transposed = expected(k, n, (kk, j) -> j * k + kk, v);
        try (Arena arena = Arena.ofConfined()) {
            // off heap, 3 floats in, as a tensor inside a larger buffer
            MemorySegment seg = arena.allocate(4L * (v.length + 3), 64);
            MemorySegment.copy(v, 0, seg, ValueLayout.JAVA_FLOAT_UNALIGNED, 12, v.length);
            assertArrayEquals(rowMajor, PackedB.pack(seg, 12, n, 1, k, n).data(), "rows (K stride n)");
            assertArrayEquals(transposed, PackedB.pack(seg, 12, 1, k, k, n).data(), "transposed (N stride k)");
            // neither stride 1: every other float of a buffer twice as long
            MemorySegment wide = arena.allocate(8L * v.length, 64);
            for (int i = 0; i < v.length; i++) {
                wide.setAtIndex(ValueLayout.JAVA_FLOAT, 2L * i, v[i]);
            }
            assertArrayEquals(rowMajor, PackedB.pack(wide, 0, 2L * n, 2, k, n).data(), "strided");
        }
        // from an array into a reused scratch that holds the previous call's values
        float[] dst = new float[transposed.length + 3];
        Arrays.fill(dst, Float.NaN);
        PackedB.packTransposed(v, k, n, dst);
        assertArrayEquals(transposed, Arrays.copyOf(dst, transposed.length), "transposed array");
    }

    @Test
    void packTransposedRefusesAShortArray() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PackedB.packTransposed(new float[64], 4, 16, new float[63]));
        // whole panels of NR columns: 64 floats with 256-bit vectors, 128 with 512
        long need = 4L * Math.ceilDiv(16, Sgemm.NR) * Sgemm.NR;
        assertTrue(e.getMessage().contains("needs " + need + " floats, got 63"), e.getMessage());
    }
}
