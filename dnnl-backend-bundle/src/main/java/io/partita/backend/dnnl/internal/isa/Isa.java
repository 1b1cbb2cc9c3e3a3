package io.partita.backend.dnnl.internal.isa;

import java.lang.management.ManagementFactory;
import java.lang.management.PlatformManagedObject;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The vector width of this JVM, chosen once at class initialization.
 *
 * <p>A species wider than what C2 compiles still works, as plain Java objects about 40x slower,
 * so the width must come from the JIT: {@link FloatVector#SPECIES_PREFERRED} is the largest shape
 * C2 supports for floats (it follows {@code -XX:MaxVectorSize} and {@code -XX:UseAVX}). On top
 * of that the JVM's flags decide whether the kernels would be intrinsified at all: no C2 (-Xint,
 * TieredStopAtLevel below 4, -XX:-UseCompiler), no vector FMA ({@code UseFMA=false}, e.g. with
 * {@code -XX:UseAVX=0}: every kernel's inner loop is an FMA), or a preferred shape under 128
 * bits. Flags are read rather than timing a vector loop against a scalar one because a probe at
 * class initialization runs in the interpreter before C2 has compiled anything, and timings on a
 * loaded machine are noisy; flags are exact and cost nothing. A VM without the HotSpot flags
 * bean (not HotSpot) is trusted on its preferred shape.
 */
public final class Isa {
    /** The float species every kernel uses. */
    public static final VectorSpecies<Float> FLOAT;
    /** Ints of the same bit size (one lane per float lane). */
    public static final VectorSpecies<Integer> INT;
    /** Shorts of half the bit size (one lane per float lane, for bf16). */
    public static final VectorSpecies<Short> SHORT;
    /** Bits of {@link #FLOAT}: 512, 256 or 128 (128 when the Vector API is unusable). */
    public static final int BITS;
    /** Float lanes of {@link #FLOAT}. */
    public static final int LANES;
    /** Whether C2 compiles the kernels to vector instructions here; the backend claims nothing otherwise. */
    public static final boolean USABLE;
    /** Why this width (or why none). */
    public static final String REASON;

    static {
        Choice c = choose(FloatVector.SPECIES_PREFERRED.vectorBitSize(), vmFlags(), System.getProperty("java.vm.info", ""),
                System.getProperty("os.arch", ""));
        // With no usable width the kernels still need a species to load; 128 bits is supported everywhere.
        int bits = c.usable() ? c.bits() : 128;
        FLOAT = FloatVector.SPECIES_PREFERRED.vectorBitSize() == bits ? FloatVector.SPECIES_PREFERRED
                : VectorSpecies.of(float.class, VectorShape.forBitSize(bits));
        INT = VectorSpecies.of(int.class, VectorShape.forBitSize(bits));
        SHORT = VectorSpecies.of(short.class, VectorShape.forBitSize(bits / 2));
        BITS = bits;
        LANES = FLOAT.length();
        USABLE = c.usable();
        REASON = c.reason();
    }

    private Isa() {
    }

    /** For {@code partita backends}: e.g. {@code avx2 (256-bit)} or {@code none: UseFMA=false ...}. */
    public static String describe() {
        return USABLE ? name(BITS, System.getProperty("os.arch", "")) : "none: " + REASON;
    }

    static String name(int bits, String arch) {
        boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
        if (x86 && bits == 512) {
            return "avx512 (512-bit)";
        }
        if (x86 && bits == 256) {
            return "avx2 (256-bit)";
        }
        return bits + "-bit";
    }

    /** A decision: the width to use, whether the Vector API is usable at all, and why. */
    record Choice(int bits, boolean usable, String reason) {
    }

    /**
     * Picks the width from the preferred float shape and the VM's flags (name to value; absent
     * flags are not checked, as on non-HotSpot VMs or flags of another CPU architecture).
     */
    static Choice choose(int preferredBits, Map<String, String> flags, String vmInfo, String arch) {
        if (vmInfo.toLowerCase(Locale.ROOT).contains("interpreted mode")) {
            return none("the JVM runs interpreted only (-Xint): no JIT to compile vector code");
        }
        if ("false".equals(flags.get("UseCompiler"))) {
            return none("-XX:-UseCompiler: no JIT to compile vector code");
        }
        String level = flags.get("TieredStopAtLevel");
        if ("true".equals(flags.get("TieredCompilation")) && level != null && Integer.parseInt(level) < 4) {
            return none("TieredStopAtLevel=" + level + ": only C1 runs, and C1 does not intrinsify the Vector API");
        }
        if ("false".equals(flags.get("UseFMA"))) {
            return none("UseFMA=false (UseAVX=" + flags.getOrDefault("UseAVX", "?")
                    + "): vector fma, the kernels' inner loop, is not intrinsified");
        }
        if (preferredBits < 128) {
            return none("the JIT's widest float vector is " + preferredBits + " bits (MaxVectorSize="
                    + flags.getOrDefault("MaxVectorSize", "?") + "), under the 128 the kernels need");
        }
        int bits = preferredBits >= 512 ? 512 : preferredBits >= 256 ? 256 : 128;
        String why = "preferred float shape " + preferredBits + " bits";
        String avx = flags.get("UseAVX");
        // AVX (1) has 256-bit float but no 256-bit integer instructions, which bf16 conversion needs.
        if (bits == 256 && avx != null && Integer.parseInt(avx) < 2) {
            return new Choice(128, true, why + ", UseAVX=" + avx + " lacks 256-bit integer vectors");
        }
        return new Choice(bits, true, bits < preferredBits ? why + ", kernels go up to 512" : why);
    }

    private static Choice none(String reason) {
        return new Choice(0, false, reason);
    }

    /**
     * The HotSpot flags {@link #choose} reads, those this VM has. Reached by reflection through the
     * platform class loader so that the bundle imports no {@code com.sun.management} package, which
     * an OSGi framework need not export.
     */
    private static Map<String, String> vmFlags() {
        Map<String, String> flags = new HashMap<>();
        Object bean;
        Method getVMOption;
        Method getValue;
        try {
            Class<? extends PlatformManagedObject> type = Class.forName("com.sun.management.HotSpotDiagnosticMXBean",
                    true, ClassLoader.getPlatformClassLoader()).asSubclass(PlatformManagedObject.class);
            bean = ManagementFactory.getPlatformMXBean(type);
            getVMOption = type.getMethod("getVMOption", String.class);
            getValue = getVMOption.getReturnType().getMethod("getValue");
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return flags; // not HotSpot
        }
        for (String name : new String[] {"UseCompiler", "TieredCompilation", "TieredStopAtLevel", "UseFMA", "UseAVX",
                "MaxVectorSize"}) {
            try {
                flags.put(name, String.valueOf(getValue.invoke(getVMOption.invoke(bean, name))));
            } catch (ReflectiveOperationException e) {
                // IllegalArgumentException inside: this VM or CPU architecture has no such flag (UseAVX is x86 only)
            }
        }
        return flags;
    }
}
