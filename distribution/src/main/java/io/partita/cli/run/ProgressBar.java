package io.partita.cli.run;

import java.io.PrintStream;

/**
 * A progress bar on stderr that appears only once a task has taken more than a second, and only
 * when stderr is a terminal (redirected output stays free of carriage returns).
 */
final class ProgressBar {
    private static final long SHOW_AFTER_NS = 1_000_000_000L;
    private static final long REDRAW_NS = 100_000_000L;
    private static final int WIDTH = 30;

    private final PrintStream err;
    private final String label;
    private final long total;
    private final long start = System.nanoTime();
    private long lastDraw;
    private boolean shown;
    private final boolean terminal = System.console() != null && System.console().isTerminal();

    ProgressBar(PrintStream err, String label, long total) {
        this.err = err;
        this.label = label;
        this.total = total;
    }

    void update(long done) {
        long now = System.nanoTime();
        if (!terminal || now - start < SHOW_AFTER_NS || (shown && now - lastDraw < REDRAW_NS && done < total)) {
            return;
        }
        shown = true;
        lastDraw = now;
        int filled = (int) (WIDTH * done / Math.max(total, 1));
        double elapsed = (now - start) / 1e9;
        double eta = done == 0 ? 0 : elapsed * (total - done) / done;
        err.printf("\r%s [%s%s] %d/%d  %.1fs elapsed, %.1fs left ", label, "#".repeat(filled), ".".repeat(WIDTH - filled),
                done, total, elapsed, eta);
        err.flush();
    }

    void finish() {
        if (shown) {
            update(total);
            err.println();
        }
    }
}
