package io.partita.spi;

import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A team of threads running parallel loops for the CPU backends, given by the runtime
 * ({@link CpuTeams}). Every CPU backend of a runtime runs its loops on the same team, so the
 * partitions of one graph, whichever backend claimed them, take turns on one set of threads (as
 * oneDNN's and ONNX Runtime's single thread pools) instead of each backend's idle threads
 * keeping a core from the next partition's.
 *
 * <p>One loop runs at a time; concurrent callers take turns, and a loop started from inside a
 * loop's body runs on its caller alone.
 */
@ProviderType
public interface CpuTeam {

    /** Threads that run a loop, counting the caller. */
    int threads();

    /**
     * Runs {@code body} over [0, tasks) and returns when every task has run; rethrows the first
     * failure (after the other threads have stopped). The caller works too. Each thread starts on
     * its own contiguous share and then takes over parts of the shares not yet claimed, so
     * {@code body} must accept any sub-range.
     *
     * @param minChunk the fewest tasks claimed at a time (a share's size keeps one call per share
     *                 unless it is taken over): for bodies expensive to split
     */
    void parallelFor(int tasks, int minChunk, RangeBody body);

    /** {@link #parallelFor(int, int, RangeBody)} with chunks of any size. */
    default void parallelFor(int tasks, RangeBody body) {
        parallelFor(tasks, 1, body);
    }

    /** A loop body over the task indices [from, to). */
    @ConsumerType
    @FunctionalInterface
    interface RangeBody {
        void run(int from, int to);
    }
}
