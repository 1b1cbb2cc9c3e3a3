package io.partita.spi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The runtime's CPU thread teams ({@link Backend#setCpuTeams}): one per CPU engine and thread
 * count, created on first use and shared by every backend asking for the same pair.
 */
@ProviderType
public interface CpuTeams {

    /**
     * The team of CPU engine {@code engineIndex} with {@code threads} threads.
     *
     * @throws IllegalArgumentException for a negative engine index or a thread count outside
     *                                  [1, {@link io.partita.graph.GraphRuntime#MAX_THREADS}]
     */
    CpuTeam team(int engineIndex, int threads);
}
