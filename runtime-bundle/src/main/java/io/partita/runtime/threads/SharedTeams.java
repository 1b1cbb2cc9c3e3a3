package io.partita.runtime.threads;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.partita.graph.GraphRuntime;
import io.partita.spi.CpuTeam;
import io.partita.spi.CpuTeams;

/**
 * A runtime's CPU thread teams, one per (engine, thread count), created on first use and shared
 * by every backend that asks for the same pair. A team whose count is no longer asked for stays
 * parked (after a spin that shrinks with every idle wake-up) until the runtime closes.
 */
public final class SharedTeams implements CpuTeams, AutoCloseable {
    private record Key(int engine, int threads) {
    }

    private final String name;
    private final Map<Key, WorkerTeam> teams = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** @param name prefix of the worker threads' names */
    public SharedTeams(String name) {
        this.name = name;
    }

    @Override
    public CpuTeam team(int engineIndex, int threads) {
        if (engineIndex < 0) {
            throw new IllegalArgumentException("CPU engine index must not be negative, got " + engineIndex);
        }
        if (threads < 1 || threads > GraphRuntime.MAX_THREADS) {
            throw new IllegalArgumentException("thread count must be from 1 to " + GraphRuntime.MAX_THREADS + ", got "
                    + threads);
        }
        WorkerTeam t = teams.get(new Key(engineIndex, threads));
        if (t != null) {
            return t;
        }
        synchronized (this) {
            // a closed runtime's team runs loops on their callers (WorkerTeam after close)
            return teams.computeIfAbsent(new Key(engineIndex, threads), k -> {
                WorkerTeam fresh = new WorkerTeam(k.threads(), name + k.engine() + "-t" + k.threads());
                if (closed) {
                    fresh.close();
                }
                return fresh;
            });
        }
    }

    /** Stops every team's workers after the loop in progress; later loops run on their callers alone. */
    @Override
    public synchronized void close() {
        closed = true;
        teams.values().forEach(WorkerTeam::close);
    }
}
