package io.partita.backend.dnnl.internal.gemm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StridedRowsTest {

    /**
     * Packing matches its definition (group g, element (r, kk) at {@code g*kc*MR + kk*MR + r}, rows
     * past the matrix zero) for rows in memory (copied out in chunks of K), transposed and strided,
     * K blocks that start inside the matrix and are not whole chunks, into a scratch holding the
     * previous call's values.
     */
    @ParameterizedTest(name = "{0}x{1} rows {2}+{3} k {4}+{5} layout {6}")
    @CsvSource({
        "40,300,0,40,0,300,rows", "40,300,3,33,17,260,rows", "20,1100,14,6,129,900,rows", "5,7,0,5,0,7,rows",
        "30,513,2,28,0,513,transposed", "17,90,0,17,5,80,strided"})
    void packsAsDefined(int m, int k, int i0, int rows, int k0, int kc, String layout) {
        float[] a = new float[2 * m * k];
        for (int i = 0; i < a.length; i++) {
            a[i] = i % 101 - 50;
        }
        MemorySegment seg = MemorySegment.ofArray(a);
        StridedRows source = switch (layout) {
            case "rows" -> new StridedRows(seg, 8, k, 1, m, k);
            case "transposed" -> new StridedRows(seg, 0, 1, m, m, k);
            default -> new StridedRows(seg, 4, 2L * k, 2, m, k); // every other element of every other row
        };
        int mr = Sgemm.MR;
        int groups = Math.ceilDiv(rows, mr);
        float[] packed = new float[3 + groups * kc * mr];
        Arrays.fill(packed, Float.NaN);
        source.pack(i0, rows, k0, kc, packed, 3);
        for (int g = 0; g < groups; g++) {
            for (int kk = 0; kk < kc; kk++) {
                for (int r = 0; r < mr; r++) {
                    int row = g * mr + r;
                    float expected = row < rows ? element(source, a, i0 + row, k0 + kk) : 0f;
                    assertEquals(expected, packed[3 + g * kc * mr + kk * mr + r],
                            "group " + g + ", row " + r + ", k " + (k0 + kk));
                }
            }
        }
    }

    private static float element(StridedRows s, float[] a, int i, int kk) {
        return a[(int) (s.off() / 4 + i * s.rowStride() + kk * s.colStride())];
    }
}
