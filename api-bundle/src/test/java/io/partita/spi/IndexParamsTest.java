package io.partita.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** ONNX's Slice and Pad parameter rules, as every backend decodes them. */
class IndexParamsTest {

    @Test
    void sliceBoundsCountFromTheEndAndClamp() {
        assertEquals(new IndexParams.SliceAxis(1, 1, 7), IndexParams.SliceAxis.of(10, 1, 8, 1));
        assertEquals(new IndexParams.SliceAxis(7, 1, 3), IndexParams.SliceAxis.of(10, -3, 100, 1));
        assertEquals(new IndexParams.SliceAxis(0, 2, 5), IndexParams.SliceAxis.of(10, -100, 10, 2));
        // negative steps: start clamps to the last index, end to -1 (before the first)
        assertEquals(new IndexParams.SliceAxis(9, -1, 10), IndexParams.SliceAxis.of(10, 100, -100, -1));
        assertEquals(new IndexParams.SliceAxis(9, -3, 3), IndexParams.SliceAxis.of(10, -1, 1, -3));
        assertEquals(0, IndexParams.SliceAxis.of(10, 5, 5, 1).count());
        assertEquals(0, IndexParams.SliceAxis.of(0, 0, 1, -1).count());
        assertEquals(10, IndexParams.SliceAxis.of(10, 0, Long.MAX_VALUE, 1).count());
        assertEquals(0, IndexParams.SliceAxis.of(10, 0, Long.MIN_VALUE, 1).count(), "an end far before the start");
    }

    @Test
    void sliceAxesFillUnslicedAxesAndRefuseBadParameters() {
        IndexParams.SliceAxis[] s = IndexParams.sliceAxes(new long[] {4, 6}, new long[] {2}, new long[] {6},
                new long[] {-1}, new long[] {2}, IllegalArgumentException::new);
        assertEquals(new IndexParams.SliceAxis(0, 1, 4), s[0]);
        assertEquals(new IndexParams.SliceAxis(2, 2, 2), s[1]);
        assertMessage("expected as many of each", () -> IndexParams.sliceAxes(new long[] {4}, new long[] {0},
                new long[] {1, 2}, new long[] {0}, new long[] {1}, IllegalArgumentException::new));
        assertMessage("axis -2 is repeated", () -> IndexParams.sliceAxes(new long[] {4, 4}, new long[] {0, 0},
                new long[] {1, 1}, new long[] {0, -2}, new long[] {1, 1}, IllegalArgumentException::new));
        assertMessage("axis 2 is out of range for rank 2", () -> IndexParams.sliceAxes(new long[] {4, 4},
                new long[] {0}, new long[] {1}, new long[] {2}, new long[] {1}, IllegalArgumentException::new));
        assertMessage("expected non-zero steps", () -> IndexParams.sliceAxes(new long[] {4}, new long[] {0},
                new long[] {1}, new long[] {0}, new long[] {0}, IllegalArgumentException::new));
    }

    @Test
    void padsSplitIntoBeginAndEndPerAxis() {
        long[][] p = IndexParams.padsPerAxis(3, new long[] {1, 2, 3, 4}, new long[] {2, 0},
                IllegalArgumentException::new);
        assertArrayEquals(new long[] {2, 4}, p[0]);
        assertArrayEquals(new long[] {0, 0}, p[1]);
        assertArrayEquals(new long[] {1, 3}, p[2]);
        assertMessage("expected 4 (begin and end for each of 2 axes)", () -> IndexParams.padsPerAxis(2,
                new long[] {1, 2}, new long[0], IllegalArgumentException::new));
        assertMessage("out of range or repeated", () -> IndexParams.padsPerAxis(2, new long[] {1, 2, 3, 4},
                new long[] {1, 1}, IllegalArgumentException::new));
    }

    @Test
    void padSourcesByMode() {
        // axis of 4 padded by 3 before: outputs 0..9 read these source indices
        long[] constant = new long[10];
        long[] reflect = new long[10];
        long[] edge = new long[10];
        long[] wrap = new long[10];
        for (int o = 0; o < 10; o++) {
            constant[o] = IndexParams.padSource("constant", o, 3, 4);
            reflect[o] = IndexParams.padSource("reflect", o, 3, 4);
            edge[o] = IndexParams.padSource("edge", o, 3, 4);
            wrap[o] = IndexParams.padSource("wrap", o, 3, 4);
        }
        assertArrayEquals(new long[] {-1, -1, -1, 0, 1, 2, 3, -1, -1, -1}, constant);
        assertArrayEquals(new long[] {3, 2, 1, 0, 1, 2, 3, 2, 1, 0}, reflect);
        assertArrayEquals(new long[] {0, 0, 0, 0, 1, 2, 3, 3, 3, 3}, edge);
        assertArrayEquals(new long[] {1, 2, 3, 0, 1, 2, 3, 0, 1, 2}, wrap);
        assertEquals(0, IndexParams.padSource("reflect", 0, 2, 1), "a one-element axis reflects onto itself");
    }

    private static void assertMessage(String part, Runnable r) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
