package io.partita.gpu.internal;

import static io.partita.gpu.internal.AgainstReference.constant;
import static io.partita.gpu.internal.AgainstReference.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.cache.CacheManager;
import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.gpu.internal.cl.DeviceContext;
import io.partita.runtime.StandaloneRuntime;
import io.partita.testkit.check.RandomInputs;

/** Two backends over one persistent cache directory: the second loads every gpu partition from its blobs and builds no program from source. */
class PersistentBinariesTest {
    @TempDir
    Path tmp;

    private long storedByFirst = -1;

    @Test
    void aSecondBackendLoadsEveryProgramAndShowsItPerDevice() {
        float[] first = runOnce();
        float[] second = runOnce();
        assertArrayEquals(first, second, 0f);
    }

    /** A new cache manager and backend (what a new process has), one MatMul + GELU graph executed. */
    private float[] runOnce() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        caches.setPersistentCacheDirectory(tmp.resolve("cache"));
        caches.setPersistentCacheCapacity(64);
        boolean firstRun = !java.nio.file.Files.exists(tmp.resolve("cache"));
        GpuBackend b = new GpuBackend(caches);
        try {
            GraphRuntime rt = StandaloneRuntime.of(caches, b);
            Graph g = rt.createGraph(EngineKind.GPU);
            g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 6, 10), constant(1, 10, 7)).output(f32(2, 6, 7)).build());
            g.add(Op.builder(1, OpKind.GELU).input(f32(2, 6, 7)).output(f32(3, 6, 7)).build());
            g.finalizeGraph();
            Engine e = AgainstReference.GPU0;
            try (Arena arena = Arena.ofShared(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
                Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, e, arena, 5);
                float[] out = cg.execute(new Stream(e), in).get(3L).toFloatArray();
                DeviceContext.ProgramStats st = b.programStats(0);
                if (firstRun) {
                    assertTrue(st.builtFromSource() > 0, st.toString());
                    assertEquals(0, st.loadedBinaries(), st.toString());
                    storedByFirst = caches.persistentCache().stats().stores();
                    assertTrue(storedByFirst >= 1, "gpu is on by default: " + caches.persistentCache().stats().describe());
                } else {
                    assertEquals(storedByFirst, caches.persistentCache().stats().hits(), "every stored partition loads");
                    assertEquals(0, caches.persistentCache().stats().stores());
                    assertEquals(0, st.builtFromSource(), st.toString());
                    assertTrue(st.loadedBinaries() > 0, st.toString());
                }
                String text = b.description();
                assertTrue(text.contains("gpu.0: ") && text.contains("; " + st.describe()), text);
                return out;
            }
        } finally {
            b.close();
        }
    }
}
