package io.partita.backend.acl.internal.simd;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The float species of the kernels: the JIT's preferred one (128 bits under
 * {@code -XX:MaxVectorSize=16}, NEON's width; 256 or 512 on x86). Kernels are blocked in multiples
 * of this width, so the same code keeps 128-bit registers busy and scales to wider ones. Below
 * 128 bits (or with C2 off) vector code would run as objects, far slower than scalar loops:
 * then the backend claims nothing.
 */
public final class Neon {
    public static final VectorSpecies<Float> FLOAT;
    public static final int LANES;
    public static final boolean USABLE;
    public static final String REASON;

    static {
        int bits = FloatVector.SPECIES_PREFERRED.vectorBitSize();
        String info = System.getProperty("java.vm.info", "");
        boolean interpreted = info.contains("interpreted mode");
        USABLE = bits >= 128 && !interpreted;
        REASON = interpreted ? "the JVM runs interpreted (-Xint)"
                : bits < 128 ? "preferred vector shape is " + bits + " bits, under 128" : "";
        FLOAT = bits >= 128 ? FloatVector.SPECIES_PREFERRED : VectorSpecies.of(float.class, VectorShape.S_128_BIT);
        LANES = FLOAT.length();
    }

    private Neon() {
    }

    public static String describe() {
        return USABLE ? FLOAT.vectorBitSize() + "-bit" : "none: " + REASON;
    }
}
