package io.partita.backend.compiler.internal.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;

/**
 * The warm-up's attentions compute softmax(Q K^T) V in both of its layouts (so the code it gets
 * compiled is the code real partitions run), and a run of rounds completes.
 */
class WarmupTest {

    @Test
    void everyWarmupCaseComputesTheAttention() {
        try (Arena arena = Arena.ofConfined()) {
            int[][] cases = {{2, 37, 64, 0}, {3, 29, 64, 1}, {2, 21, 20, 1}};
            for (int[] c : cases) {
                Warmup.Case w = new Warmup.Case(arena, c[0], c[1], c[2], c[3] == 1);
                w.run();
                assertAttention(w, c[0], c[1], c[2], c[3] == 1);
            }
        }
        Warmup.rounds(12);
    }

    private static void assertAttention(Warmup.Case w, int heads, int s, int d, boolean interleaved) {
        FlashAttention.Buffers b = w.b();
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < s; i++) {
                double[] p = new double[s];
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < s; j++) {
                    double dot = 0;
                    for (int e = 0; e < d; e++) {
                        dot += get(b.q(), at(h, i, e, heads, s, d, interleaved))
                                * get(b.k(), at(h, j, e, heads, s, d, interleaved));
                    }
                    p[j] = dot;
                    max = Math.max(max, dot);
                }
                double sum = 0;
                for (int j = 0; j < s; j++) {
                    p[j] = Math.exp(p[j] - max);
                    sum += p[j];
                }
                for (int e = 0; e < d; e++) {
                    double o = 0;
                    for (int j = 0; j < s; j++) {
                        o += p[j] / sum * get(b.v(), at(h, j, e, heads, s, d, interleaved));
                    }
                    assertEquals(o, get(b.o(), at(h, i, e, heads, s, d, interleaved)), 1e-4 * (1 + Math.abs(o)),
                            "head " + h + " row " + i + " column " + e + (interleaved ? " (interleaved)" : ""));
                }
            }
        }
    }

    private static long at(int h, int row, int e, int heads, int s, int d, boolean interleaved) {
        return interleaved ? (long) row * heads * d + (long) h * d + e : ((long) h * s + row) * d + e;
    }

    private static double get(MemorySegment m, long i) {
        return m.getAtIndex(ValueLayout.JAVA_FLOAT, i);
    }
}
