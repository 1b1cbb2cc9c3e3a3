package io.partita.backend.dnnl;

/**
 * The DNNL-style backend's thread count: how many threads each CPU engine's pool runs. One
 * setting reachable three ways, the latest winning: the environment variable
 * {@code PARTITA_DNNL_THREADS} (read once at start), Config Admin (PID
 * {@code io.partita.backend.dnnl}, property {@code threads}), and {@link #setThreads}.
 */
public final class DnnlSettings {
    public static final String THREADS_ENV = "PARTITA_DNNL_THREADS";

    private static volatile int threads = initialThreads(System.getenv(THREADS_ENV));

    private DnnlSettings() {
    }

    static int initialThreads(String env) {
        int cores = Runtime.getRuntime().availableProcessors();
        if (env == null || env.isBlank()) {
            return cores;
        }
        try {
            return parseThreads(THREADS_ENV, env);
        } catch (IllegalArgumentException e) {
            org.slf4j.LoggerFactory.getLogger(DnnlSettings.class).error("ignored: {}", e.getMessage());
            return cores;
        }
    }

    /** Parses a thread count, refusing anything but an integer in [1, 1024] with a message quoting it. */
    public static int parseThreads(String source, String value) {
        String t = value == null ? "" : value.trim();
        if (!t.matches("\\d{1,4}") || Integer.parseInt(t) < 1 || Integer.parseInt(t) > 1024) {
            throw new IllegalArgumentException(source + "='" + value
                    + "' is not a thread count; expected an integer from 1 to 1024");
        }
        return Integer.parseInt(t);
    }

    public static int threads() {
        return threads;
    }

    /** Sets the thread count; each engine's pool is rebuilt before its next execution. */
    public static void setThreads(int count) {
        if (count < 1 || count > 1024) {
            throw new IllegalArgumentException("thread count must be from 1 to 1024, got " + count);
        }
        threads = count;
    }
}
