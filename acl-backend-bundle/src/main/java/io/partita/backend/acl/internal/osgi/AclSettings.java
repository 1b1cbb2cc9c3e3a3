package io.partita.backend.acl.internal.osgi;

/** Validation of the Config Admin values (kept apart from the component to be tested without OSGi). */
final class AclSettings {
    /** 1 TB: anything above is a typo. */
    static final long MAX_POOL_CAP_MB = 1L << 20;

    private AclSettings() {
    }

    /**
     * The pool cap in megabytes.
     *
     * @throws IllegalArgumentException naming the setting and the accepted range for anything else
     */
    static long poolCapMb(String value) {
        String v = value == null ? "" : value.trim();
        long mb;
        try {
            mb = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(bad(value));
        }
        if (mb < 0 || mb > MAX_POOL_CAP_MB) {
            throw new IllegalArgumentException(bad(value));
        }
        return mb;
    }

    /**
     * Whether primitives get the cached memory manager ({@code cached}) or the per-run baseline
     * ({@code on-demand}).
     *
     * @throws IllegalArgumentException naming the setting and both accepted values for anything else
     */
    static boolean cachedMemory(String value) {
        String v = value == null ? "" : value.trim();
        return switch (v) {
            case "cached" -> true;
            case "on-demand" -> false;
            default -> throw new IllegalArgumentException("io.partita.backend.acl memory.manager must be 'cached' or"
                    + " 'on-demand', got '" + value + "'");
        };
    }

    private static String bad(String value) {
        return "io.partita.backend.acl pool.cap.mb must be a whole number of megabytes from 0 to " + MAX_POOL_CAP_MB
                + ", got '" + value + "'";
    }
}
