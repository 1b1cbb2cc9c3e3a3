package io.partita.backend.compiler.internal.exec;

import java.util.function.IntConsumer;

import io.partita.spi.CpuTeam;

/**
 * Where a fused loop's tasks (batch x query blocks, row blocks, weight panels) run: on the
 * runtime's thread team of the engine, shared with the other CPU backends, so the caller works
 * beside workers that are already spinning for the next loop instead of waking a pool of this
 * backend's own (see {@link CpuTeam} for how tasks are shared and failures rethrown).
 */
public final class Parallel {
    /** Runs every task on the calling thread (tensors of a confined arena, or no runtime). */
    public static final Parallel CALLER = new Parallel(null);
    private final CpuTeam team;

    /** @param team the team, or null for the calling thread alone */
    public Parallel(CpuTeam team) {
        this.team = team;
    }

    public int threads() {
        return team == null ? 1 : team.threads();
    }

    /**
     * Runs {@code body} for 0..n-1 and returns when every call has returned; on the caller's thread
     * alone when there is one task or one thread. The first failure is rethrown (after the other
     * threads have stopped claiming tasks and finished the ones they had).
     */
    public void forEach(int n, IntConsumer body) {
        if (n <= 0) {
            return; // an empty tensor: nothing to do
        }
        if (team == null || n == 1 || team.threads() == 1) {
            for (int i = 0; i < n; i++) {
                body.accept(i);
            }
            return;
        }
        team.parallelFor(n, (from, to) -> {
            for (int i = from; i < to; i++) {
                body.accept(i);
            }
        });
    }
}
