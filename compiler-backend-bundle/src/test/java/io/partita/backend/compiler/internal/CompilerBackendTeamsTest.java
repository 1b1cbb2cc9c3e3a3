package io.partita.backend.compiler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.backend.compiler.internal.exec.Parallel;
import io.partita.runtime.StandaloneRuntime;
import io.partita.spi.CpuTeam;
import io.partita.spi.CpuTeams;

/**
 * Which thread team the fused loops run on: the calling thread without a runtime, the runtime's
 * team for the engine and thread setting, a new team when the setting or the runtime's teams change.
 */
class CompilerBackendTeamsTest {

    /** Records what it is asked for and gives a team of that count. */
    private static final class Recording implements CpuTeams {
        final List<String> asked = new ArrayList<>();

        @Override
        public CpuTeam team(int engineIndex, int threads) {
            asked.add(engineIndex + ":" + threads);
            return new CpuTeam() {
                @Override
                public int threads() {
                    return threads;
                }

                @Override
                public void parallelFor(int tasks, int minChunk, RangeBody body) {
                    body.run(0, tasks);
                }
            };
        }
    }

    @Test
    void loopsFollowTheRuntimesTeamsAndTheThreadSetting() {
        CompilerBackend backend = new CompilerBackend(StandaloneRuntime.newCacheManager());
        try {
            assertSame(Parallel.CALLER, backend.pool(0), "no runtime: the calling thread");
            Recording first = new Recording();
            backend.setCpuTeams(first);
            backend.setThreads(3);
            Parallel p = backend.pool(1);
            assertEquals(3, p.threads());
            assertSame(p, backend.pool(1), "cached while nothing changed");
            assertEquals(List.of("1:3"), first.asked);
            backend.setThreads(2);
            assertEquals(2, backend.pool(1).threads());
            Recording second = new Recording();
            backend.setCpuTeams(second);
            backend.pool(1);
            assertEquals(List.of("1:2"), second.asked, "another runtime's teams replace the cached team");
            assertEquals(List.of("1:3", "1:2"), first.asked);
        } finally {
            backend.close();
        }
    }
}
