package io.partita.backend.acl.internal.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NeonTest {

    /** The build's second test run passes -XX:MaxVectorSize=16 and expects the 128-bit kernels. */
    @Test
    void theKernelsRunAtTheWidthTheJvmPrefers() {
        assertTrue(Neon.USABLE, Neon.REASON);
        assertEquals(Neon.FLOAT.vectorBitSize() / 32, Neon.LANES);
        assertEquals(2 * Neon.LANES, Gemm.PANEL);
        String expected = System.getProperty("acl.expectedVectorBits");
        if (expected != null) {
            assertEquals(Integer.parseInt(expected), Neon.FLOAT.vectorBitSize());
        }
        assertTrue(Neon.describe().startsWith(Neon.FLOAT.vectorBitSize() + "-bit"), Neon.describe());
    }
}
