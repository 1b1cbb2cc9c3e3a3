package io.partita.graph;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told how long each step of one {@link CompiledGraph#execute(Stream, java.util.Map, StepObserver)
 * execution} took: a per-partition profile, as oneDNN's verbose mode prints one line per primitive.
 */
@ConsumerType
@FunctionalInterface
public interface StepObserver {

    /**
     * Step {@code step} (an index into {@link CompiledGraph#steps()}) has returned after
     * {@code nanos} of wall time on the calling thread. On an engine whose streams run
     * asynchronously that is the time to enqueue the step, not to run it.
     */
    void stepDone(int step, long nanos);
}
