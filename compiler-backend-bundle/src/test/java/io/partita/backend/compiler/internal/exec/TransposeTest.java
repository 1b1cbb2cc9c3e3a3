package io.partita.backend.compiler.internal.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.partita.backend.compiler.internal.exec.FlashAttention.Access;
import io.partita.graph.DataType;

/** The in-register block transpose and the K packing built on it, against the layout written out element by element. */
class TransposeTest {
    private static final int NR = Panels.NR;

    @Test
    void blockIsTheTransposeAtAnyStrideAndOffset() {
        assumeTrue(Transpose.supported(), "no block transpose at this vector length");
        int n = Transpose.length();
        SplittableRandom r = new SplittableRandom(5);
        try (Arena arena = Arena.ofConfined()) {
            for (long stride : new long[] {n, n + 3, 768}) {
                long from = 7;
                MemorySegment src = arena.allocate(4 * (from + n * stride + n));
                for (long i = 0; i < src.byteSize() / 4; i++) {
                    src.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) r.nextGaussian());
                }
                int ldd = n + 5;
                float[] dst = new float[3 + n * ldd];
                Transpose.block(src, from, stride, dst, 3, ldd);
                for (int row = 0; row < n; row++) {
                    for (int c = 0; c < n; c++) {
                        assertEquals(src.getAtIndex(ValueLayout.JAVA_FLOAT, from + row * stride + c), dst[3 + c * ldd + row],
                                "row " + row + " column " + c + " at stride " + stride);
                    }
                }
            }
        }
    }

    /** Key counts around panel and block edges, dense rows and rows inside a wider tensor ([b, s, h, d]). */
    @Test
    void packedKeysMatchThePanelLayoutWithZerosPastTheLastKey() {
        SplittableRandom r = new SplittableRandom(9);
        try (Arena arena = Arena.ofConfined()) {
            for (int d : new int[] {64, 16, 8, 24, 530}) {
                for (int sk : new int[] {1, 7, 8, 15, 16, 17, 31, 32, 33, 100, 128}) {
                    for (long row : List.of((long) d, 3L * d + 5)) {
                        long base = 11;
                        MemorySegment k = arena.allocate(4 * (base + sk * row + d));
                        for (long i = 0; i < k.byteSize() / 4; i++) {
                            k.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) r.nextGaussian());
                        }
                        int panels = (sk + NR - 1) / NR;
                        float[] kp = new float[panels * NR * d];
                        java.util.Arrays.fill(kp, Float.NaN); // stale values must not survive
                        Access a = new Access(new long[0], row, 1, DataType.F32);
                        FlashAttention.packKeys(k, base, a, sk, d, kp, new float[d]);
                        for (int j = 0; j < panels * NR; j++) {
                            for (int e = 0; e < d; e++) {
                                float want = j < sk ? k.getAtIndex(ValueLayout.JAVA_FLOAT, base + j * row + e) : 0f;
                                assertEquals(want, kp[(j / NR) * d * NR + e * NR + j % NR],
                                        "key " + j + " dim " + e + " (d " + d + ", sk " + sk + ", row stride " + row + ")");
                            }
                        }
                    }
                }
            }
        }
    }
}
