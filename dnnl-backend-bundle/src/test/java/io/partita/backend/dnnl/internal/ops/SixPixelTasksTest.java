package io.partita.backend.dnnl.internal.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SixPixelTasksTest {

    /** Every (outer, panel, pixel) is covered exactly once, however the task range is cut. */
    @ParameterizedTest
    @CsvSource({"196,96,4,2,2", "196,96,4,2,3", "49,96,8,1,2", "784,96,2,3,5", "1,96,1,1,1", "6,6,3,2,4",
            "13,12,5,2,7", "3136,96,1,1,2"})
    void coversEveryPixelOnceForAnySplit(int pixels, int block, int panels, int outers, int parts) {
        SixPixelTasks space = new SixPixelTasks(pixels, block, panels);
        int tasks = outers * space.perOuter();
        assertEquals(outers * panels * ((pixels + 5) / 6), tasks, "only groups holding pixels are tasks");
        int[] seen = new int[outers * panels * pixels];
        SixPixelTasks at = new SixPixelTasks(pixels, block, panels);
        for (int part = 0; part < parts; part++) {
            int from = (int) ((long) tasks * part / parts);
            int to = (int) ((long) tasks * (part + 1) / parts);
            for (int u = from; u < to; u += at.length) {
                at.seek(u, to);
                assertTrue(at.length >= 1 && at.length <= to - u, "run within the range");
                assertTrue(at.px0 < at.px1, "a task holds pixels");
                assertTrue(at.px1 - at.px0 <= 6 * at.length, "six pixels per task");
                assertEquals(at.px0 / block, at.block, "the run stays in its block");
                assertEquals((at.px1 - 1) / block, at.block, "the run stays in its block");
                for (int p = at.px0; p < at.px1; p++) {
                    seen[(at.outer * panels + at.panel) * pixels + p]++;
                }
            }
        }
        for (int i = 0; i < seen.length; i++) {
            assertEquals(1, seen[i], "outer/panel/pixel " + i);
        }
    }

    @ParameterizedTest
    @CsvSource({"196,96,4", "49,96,8", "784,96,2"})
    void evenSplitOfTasksIsAnEvenSplitOfPixels(int pixels, int block, int panels) {
        SixPixelTasks space = new SixPixelTasks(pixels, block, panels);
        int tasks = space.perOuter();
        int[] work = new int[2];
        SixPixelTasks at = new SixPixelTasks(pixels, block, panels);
        for (int part = 0; part < 2; part++) {
            int from = tasks * part / 2;
            int to = tasks * (part + 1) / 2;
            for (int u = from; u < to; u += at.length) {
                at.seek(u, to);
                work[part] += at.px1 - at.px0;
            }
        }
        // at most one six-pixel group (per panel boundary crossed) apart
        assertTrue(Math.abs(work[0] - work[1]) <= 6 * 2, "pixels per thread " + work[0] + " and " + work[1]);
    }
}
