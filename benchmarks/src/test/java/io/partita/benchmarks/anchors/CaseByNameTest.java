package io.partita.benchmarks.anchors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Cases named on the command line: any matmul or convolution shape, by the name its report line prints. */
class CaseByNameTest {

    @Test
    void aConvolutionShapeIsACaseByItsOwnName() {
        Case c = Case.byName("conv_n1c256h14w14k1024r1s1p0s1");
        assertEquals(new Case.Conv(1, 256, 14, 14, 1024, 1, 1, 0, 1), c);
        assertEquals("conv_n1c256h14w14k1024r1s1p0s1", c.name());
        Case strided = Case.byName("conv_n2c3h224w224k64r7s7p3s2");
        assertEquals(new Case.Conv(2, 3, 224, 224, 64, 7, 7, 3, 2), strided);
        assertEquals(112, ((Case.Conv) strided).oh());
    }

    @Test
    void aMatmulShapeIsACaseByItsOwnName() {
        assertEquals(new Case.MatMul(128, 768, 3072), Case.byName("matmul_128x768x3072"));
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> Case.byName("matmul_0x768x3072"));
        assertTrue(zero.getMessage().contains("positive M, K and N"), zero.getMessage());
    }

    @Test
    void impossibleShapesAndOtherNamesAreRefusedByName() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> Case.byName("conv_n1c0h14w14k64r1s1p0s1"));
        assertTrue(zero.getMessage().contains("conv_n1c0h14w14k64r1s1p0s1"), zero.getMessage());
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> Case.byName("conv_n1c8h2w2k8r5s5p1s1"));
        assertTrue(big.getMessage().contains("kernel no larger"), big.getMessage());
        assertTrue(Case.isShapeName("matmul_1x2x3") && Case.isShapeName("conv_n1c8h2w2k8r5s5p1s1"));
        assertFalse(Case.isShapeName("conv_1x1") || Case.isShapeName("matmul_1x2") || Case.isShapeName("matmul_1x2x3x4"));
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class,
                () -> Case.byName("conv_1x1"));
        assertTrue(other.getMessage().contains("conv_n<N>c<C>"), other.getMessage());
    }
}
