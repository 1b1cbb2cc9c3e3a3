package io.partita.backend.dnnl.internal.gemm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** A packed once hands out the same row groups as packing the matrix per call, and refuses short arrays. */
class PackedATest {

    @ParameterizedTest(name = "{0}x{1}")
    @CsvSource({"1,1", "5,7", "9,1100", "17,2049", "40,300"})
    void eachBlockMatchesPackingItFromTheMatrix(int m, int k) {
        float[] a = new float[m * k];
        for (int i = 0; i < a.length; i++) {
            a[i] = i % 97 - 48;
        }
        StridedRows rows = new StridedRows(MemorySegment.ofArray(a), 0, k, 1, m, k);
        PackedA packed = PackedA.pack(rows, new float[(int) PackedA.packedLength(m, k)]);
        int kBlocks = Sgemm.kBlocks(k);
        for (int kb = 0; kb < kBlocks; kb++) {
            int k0 = Sgemm.kStart(k, kBlocks, kb);
            int kc = Sgemm.kStart(k, kBlocks, kb + 1) - k0;
            // every block of whole groups, the last one short of MR rows where m is
            for (int i0 = 0; i0 < m; i0 += Sgemm.MR) {
                int count = Math.min(m - i0, 2 * Sgemm.MR);
                int groups = Math.ceilDiv(count, Sgemm.MR);
                float[] expected = new float[groups * kc * Sgemm.MR];
                float[] actual = new float[expected.length];
                rows.pack(i0, count, k0, kc, expected, 0);
                packed.pack(i0, count, k0, kc, actual, 0);
                assertArrayEquals(expected, actual, "rows " + i0 + "+" + count + ", K block " + kb);
                // and what the kernels read in place
                float[] inPlace = new float[expected.length];
                System.arraycopy(packed.data(), packed.offset(i0, k0, kc), inPlace, 0,
                        Math.min(inPlace.length, packed.data().length - packed.offset(i0, k0, kc)));
                assertArrayEquals(expected, inPlace, "in place: rows " + i0 + "+" + count + ", K block " + kb);
            }
        }
    }

    @Test
    void refusesAnArrayTooShortForTheMatrix() {
        StridedRows rows = new StridedRows(MemorySegment.ofArray(new float[6 * 10]), 0, 10, 1, 6, 10);
        int need = (int) PackedA.packedLength(6, 10);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PackedA.pack(rows, new float[need - 1]));
        assertTrue(e.getMessage().contains(need + " floats"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PackedA.wrap(6, 10, new float[need - 1]));
    }
}
