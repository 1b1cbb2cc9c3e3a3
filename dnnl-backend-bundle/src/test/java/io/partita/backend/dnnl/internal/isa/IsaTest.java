package io.partita.backend.dnnl.internal.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import jdk.incubator.vector.FloatVector;

/** The width decision from the preferred shape and the VM's flags, and this JVM's choice. */
class IsaTest {
    private static final Map<String, String> HOTSPOT_AVX512 = Map.of("UseCompiler", "true", "TieredCompilation", "true",
            "TieredStopAtLevel", "4", "UseFMA", "true", "UseAVX", "3", "MaxVectorSize", "64");

    @Test
    void takesThePreferredWidthUpTo512() {
        assertEquals(512, Isa.choose(512, HOTSPOT_AVX512, "mixed mode", "amd64").bits());
        assertEquals(512, Isa.choose(2048, Map.of(), "mixed mode", "aarch64").bits()); // SVE-2048: kernels stop at 512
        assertEquals(256, Isa.choose(256, with("UseAVX", "2"), "mixed mode", "amd64").bits());
        assertEquals(128, Isa.choose(128, with("MaxVectorSize", "16"), "mixed mode", "amd64").bits());
        assertEquals(128, Isa.choose(128, Map.of("UseFMA", "true"), "mixed mode", "aarch64").bits()); // NEON
    }

    @Test
    void avxWithout2HasNo256BitIntegersSoItTakes128() {
        Isa.Choice c = Isa.choose(256, with("UseAVX", "1"), "mixed mode", "amd64");
        assertTrue(c.usable());
        assertEquals(128, c.bits());
    }

    @Test
    void declinesWhenTheJitWouldNotIntrinsify() {
        assertUnusable(Isa.choose(64, with("MaxVectorSize", "8"), "mixed mode", "amd64"), "64 bits");
        assertUnusable(Isa.choose(128, with("UseFMA", "false"), "mixed mode", "amd64"), "UseFMA=false");
        assertUnusable(Isa.choose(512, HOTSPOT_AVX512, "interpreted mode, sharing", "amd64"), "-Xint");
        assertUnusable(Isa.choose(512, with("TieredStopAtLevel", "1"), "mixed mode", "amd64"), "TieredStopAtLevel=1");
        assertUnusable(Isa.choose(512, with("UseCompiler", "false"), "mixed mode", "amd64"), "UseCompiler");
    }

    @Test
    void namesTheWidthForListings() {
        assertEquals("avx512 (512-bit)", Isa.name(512, "amd64"));
        assertEquals("avx2 (256-bit)", Isa.name(256, "amd64"));
        assertEquals("128-bit", Isa.name(128, "amd64"));
        assertEquals("128-bit", Isa.name(128, "aarch64"));
    }

    /** This JVM (the test's flags): the species constants agree with each other and with the JIT's preferred shape. */
    @Test
    void thisJvmsSpeciesAreConsistent() {
        assertEquals(Isa.BITS, Isa.FLOAT.vectorBitSize());
        assertEquals(Isa.BITS, Isa.INT.vectorBitSize());
        assertEquals(Isa.LANES, Isa.SHORT.length());
        assertEquals(Isa.BITS / 32, Isa.LANES);
        if (Isa.USABLE) {
            int preferred = FloatVector.SPECIES_PREFERRED.vectorBitSize();
            assertEquals(Isa.REASON.contains("UseAVX=1") ? 128 : Math.min(512, preferred), Isa.BITS, Isa.REASON);
            assertTrue(Isa.describe().contains(Isa.BITS + "-bit"), Isa.describe());
        } else {
            assertTrue(Isa.describe().startsWith("none: "), Isa.describe());
        }
    }

    /** The build's second test run (-XX:UseAVX=2) says which width it expects; the kernels must really run at it. */
    @Test
    void usesTheWidthTheBuildAsksFor() {
        String expected = System.getProperty("dnnl.expectedIsaBits");
        Assumptions.assumeTrue(expected != null, "only in a test run with forced JVM flags");
        assertTrue(Isa.USABLE, Isa.REASON);
        assertEquals(Integer.parseInt(expected), Isa.BITS, Isa.REASON);
    }

    private static Map<String, String> with(String flag, String value) {
        Map<String, String> m = new java.util.HashMap<>(HOTSPOT_AVX512);
        m.put(flag, value);
        return m;
    }

    private static void assertUnusable(Isa.Choice c, String reasonPart) {
        assertFalse(c.usable(), c.toString());
        assertTrue(c.reason().contains(reasonPart), c.reason());
    }
}
