package io.partita.gpu.internal.cl;

import static org.jocl.CL.clCreateKernel;
import static org.jocl.CL.clReleaseKernel;
import static org.jocl.CL.clReleaseMemObject;
import static org.jocl.CL.clSetKernelArg;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.cache.CacheManager;
import io.partita.cache.DeviceKind;
import io.partita.cache.PersistentCache;
import io.partita.cache.PersistentCacheStats.Reject;
import io.partita.runtime.StandaloneRuntime;

/** Program binaries in the persistent cache: built and stored by one context, loaded by the next, refused ones rebuilt. */
class PersistentProgramTest {
    private static final String BACKEND = "gpu 0.1";
    private static final int N = 64;

    @TempDir
    Path tmp;

    /** Different per test, so PoCL's own cache never makes one test depend on another. */
    private static String source(String tag) {
        return "// " + tag + "\n__kernel void affine(__global float* x) {\n"
                + "    int i = get_global_id(0);\n    x[i] = x[i] * 2.5f - 1.0f + (float) i;\n}\n";
    }

    private static GpuDevice device() {
        Discovery.Result r = Discovery.discover();
        assertFalse(r.devices().isEmpty(), "no OpenCL device: " + r.problem());
        return r.devices().get(0);
    }

    /** A fresh cache manager (as another process would have) over the test's directory. */
    private PersistentCache store() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        caches.setPersistentCacheDirectory(tmp.resolve("cache"));
        caches.setPersistentCacheCapacity(64);
        caches.setPersistentCacheEnabled(DeviceKind.GPU, true);
        return caches.persistentCache();
    }

    @Test
    void aSecondContextLoadsTheStoredBinaryAndComputesTheSame() {
        GpuDevice dev = device();
        String source = source("round trip " + System.nanoTime());
        PersistentCache first = store();
        float[] built;
        try (DeviceContext a = new DeviceContext(dev, first, BACKEND)) {
            built = run(a, source);
            assertEquals(1, a.programStats().builtFromSource());
            assertEquals(0, a.programStats().loadedBinaries());
        }
        assertEquals(1, first.stats().stores(), first.stats().describe());

        PersistentCache second = store();
        try (DeviceContext b = new DeviceContext(dev, second, BACKEND)) {
            float[] loaded = run(b, source);
            DeviceContext.ProgramStats st = b.programStats();
            assertEquals(1, st.loadedBinaries(), st.toString());
            assertEquals(0, st.builtFromSource(), st.toString());
            assertEquals(0, st.refusedBinaries());
            assertTrue(st.describe().contains("0 built from source, 1 loaded from binaries"), st.describe());
            assertArrayEquals(expected(), loaded, 1e-5f);
            assertArrayEquals(built, loaded, 0f);
            b.program(source);
            assertEquals(1, second.stats().hits() + second.stats().misses(), "built once per context");
        }
    }

    @Test
    void aGarbageBinaryUnderTheRightKeyFallsBackToTheSource() {
        GpuDevice dev = device();
        String source = source("garbage " + System.nanoTime());
        PersistentCache s = store();
        try (DeviceContext probe = new DeviceContext(dev, s, BACKEND)) {
            byte[] key = probe.persistentKey(source, "-cl-std=CL1.2");
            byte[] garbage = "this is no OpenCL program binary at all, only text".repeat(20)
                    .getBytes(StandardCharsets.UTF_8);
            assertTrue(s.store(DeviceKind.GPU, key, List.of(garbage)));
        }
        try (DeviceContext c = new DeviceContext(dev, s, BACKEND)) {
            float[] out = run(c, source);
            DeviceContext.ProgramStats st = c.programStats();
            assertEquals(1, st.refusedBinaries(), st.toString());
            assertEquals(1, st.builtFromSource(), st.toString());
            assertEquals(0, st.loadedBinaries());
            assertArrayEquals(expected(), out, 1e-5f);
        }
        assertEquals(1, s.stats().rejects().get(Reject.REFUSED), s.stats().describe());
        try (DeviceContext d = new DeviceContext(dev, store(), BACKEND)) {
            run(d, source);
            assertEquals(1, d.programStats().loadedBinaries(), "the refused binary was replaced by the good one");
        }
    }

    @Test
    void withGpuDisabledNothingIsStored() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        caches.setPersistentCacheDirectory(tmp.resolve("cache"));
        caches.setPersistentCacheCapacity(64);
        caches.setPersistentCacheEnabled(DeviceKind.GPU, false);
        try (DeviceContext c = new DeviceContext(device(), caches.persistentCache(), BACKEND)) {
            run(c, source("off " + System.nanoTime()));
            assertEquals(1, c.programStats().builtFromSource());
        }
        assertEquals(0, caches.persistentCache().stats().stores());
    }

    @Test
    void theKeyCoversSourceOptionsAndDevice() {
        GpuDevice dev = device();
        try (DeviceContext c = new DeviceContext(dev, null, BACKEND)) {
            byte[] k = c.persistentKey(source("a"), "-cl-std=CL1.2");
            assertArrayEquals(k, c.persistentKey(source("a"), "-cl-std=CL1.2"));
            assertFalse(Arrays.equals(k, c.persistentKey(source("b"), "-cl-std=CL1.2")));
            assertFalse(Arrays.equals(k, c.persistentKey(source("a"), "-cl-std=CL2.0")));
            String text = new String(k, StandardCharsets.UTF_8);
            for (String part : new String[] {dev.name(), dev.vendor(), dev.driverVersion(), dev.openclVersion(),
                    dev.platformName(), BACKEND}) {
                assertTrue(text.contains(part), part);
            }
        }
        GpuDevice otherDriver = new GpuDevice(dev.index(), dev.platform(), dev.id(), dev.name(), dev.vendor(),
                dev.platformName(), dev.driverVersion() + ".1", dev.openclVersion(), dev.type(), dev.globalMemBytes(),
                dev.maxAllocBytes(), dev.localMemBytes(), dev.computeUnits(), dev.maxWorkGroupSize(), dev.extensions());
        try (DeviceContext c = new DeviceContext(dev, null, BACKEND);
                DeviceContext o = new DeviceContext(otherDriver, null, BACKEND)) {
            assertFalse(Arrays.equals(c.persistentKey(source("a"), "x"), o.persistentKey(source("a"), "x")));
        }
    }

    private static float[] expected() {
        float[] e = new float[N];
        for (int i = 0; i < N; i++) {
            e[i] = i * 0.25f * 2.5f - 1.0f + i;
        }
        return e;
    }

    /** Runs affine over x[i] = i / 4 on the context's device and returns x. */
    private static float[] run(DeviceContext c, String source) {
        Queue q = c.newQueue();
        cl_mem buf = c.buffer((long) N * Float.BYTES);
        cl_kernel k = clCreateKernel(c.program(source), "affine", null);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate((long) N * Float.BYTES, 64);
            for (int i = 0; i < N; i++) {
                host.setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.25f);
            }
            q.write(buf, host, host.byteSize());
            clSetKernelArg(k, 0, Sizeof.cl_mem, Pointer.to(buf));
            q.launch(k, new long[] {N}, null);
            q.waitAll();
            q.read(host, buf, host.byteSize());
            return host.toArray(ValueLayout.JAVA_FLOAT);
        } finally {
            clReleaseKernel(k);
            clReleaseMemObject(buf);
            q.release();
        }
    }
}
