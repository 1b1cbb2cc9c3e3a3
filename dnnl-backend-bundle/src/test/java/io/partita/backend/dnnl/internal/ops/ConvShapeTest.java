package io.partita.backend.dnnl.internal.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Dense (o, i, h, w) weights come out the same from a dense tensor (one bulk copy) as from any strided one. */
class ConvShapeTest {

    @ParameterizedTest(name = "oc {0} ic {1} {2}x{3} groups {4}")
    @CsvSource({"1,1,1,1,1", "8,3,7,7,1", "16,12,3,3,4", "5,2,1,3,1"})
    void denseWeightsFromAnyLayout(int oc, int ic, int kh, int kw, int groups) {
        ConvShape s = new ConvShape(1, ic, 9, 9, oc, 9, 9, kh, kw, 1, 1, 1, 1, 0, 0, groups, 0, 0, 0, 0);
        int icg = ic / groups;
        float[] oihw = new float[oc * icg * kh * kw];
        float[] hwio = new float[oihw.length];
        for (int o = 0; o < oc; o++) {
            for (int i = 0; i < icg; i++) {
                for (int y = 0; y < kh; y++) {
                    for (int x = 0; x < kw; x++) {
                        float v = o * 1000 + i * 100 + y * 10 + x;
                        oihw[((o * icg + i) * kh + y) * kw + x] = v;
                        hwio[((y * kw + x) * icg + i) * oc + o] = v;
                    }
                }
            }
        }
        float[] fromDense = new float[oihw.length];
        s.denseWeights(MemorySegment.ofArray(oihw), (long) icg * kh * kw, (long) kh * kw, kw, 1, fromDense);
        assertArrayEquals(oihw, fromDense);
        // HWIO (TensorFlow's layout): o stride 1, i stride oc, h stride kw * icg * oc, w stride icg * oc
        MemorySegment hwioSegment = java.lang.foreign.Arena.ofAuto().allocate(4L * hwio.length, 64);
        MemorySegment.copy(hwio, 0, hwioSegment, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, hwio.length);
        float[] fromStrided = new float[oihw.length];
        s.denseWeights(hwioSegment, 1, oc, (long) kw * icg * oc, (long) icg * oc, fromStrided);
        assertArrayEquals(oihw, fromStrided);
    }
}
