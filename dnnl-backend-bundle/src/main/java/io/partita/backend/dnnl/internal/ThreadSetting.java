package io.partita.backend.dnnl.internal;

/**
 * Parsing of the backend's thread count, one setting reachable three ways (the latest wins): the
 * environment variable {@value #ENV} (read once, when the backend is created), Config Admin (PID
 * {@code io.partita.backend.dnnl}, property {@code threads}) and the runtime's
 * {@link io.partita.graph.GraphRuntime#setThreads}.
 */
public final class ThreadSetting {
    public static final String ENV = "PARTITA_DNNL_THREADS";
    static final int MAX = io.partita.graph.GraphRuntime.MAX_THREADS;

    private ThreadSetting() {
    }

    /** The count from the environment, or all cores when unset or malformed (logged, naming the value). */
    static int fromEnvironment(String env) {
        int cores = Math.clamp(Runtime.getRuntime().availableProcessors(), 1, MAX); // teams take at most MAX
        if (env == null || env.isBlank()) {
            return cores;
        }
        try {
            return parse(ENV, env);
        } catch (IllegalArgumentException e) {
            org.slf4j.LoggerFactory.getLogger(ThreadSetting.class).error("ignored: {}", e.getMessage());
            return cores;
        }
    }

    /** Parses a thread count, refusing anything but an integer in [1, 1024] with a message quoting it. */
    public static int parse(String source, String value) {
        String t = value == null ? "" : value.trim();
        if (!t.matches("\\d{1,4}") || Integer.parseInt(t) < 1 || Integer.parseInt(t) > MAX) {
            throw new IllegalArgumentException(source + "='" + value
                    + "' is not a thread count; expected an integer from 1 to " + MAX);
        }
        return Integer.parseInt(t);
    }
}
