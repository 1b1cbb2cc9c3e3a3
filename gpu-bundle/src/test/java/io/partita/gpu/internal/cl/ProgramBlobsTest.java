package io.partita.gpu.internal.cl;

import static org.jocl.CL.clCreateKernel;
import static org.jocl.CL.clReleaseKernel;
import static org.jocl.CL.clReleaseMemObject;
import static org.jocl.CL.clSetKernelArg;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.junit.jupiter.api.Test;


/** Program binaries as cache blobs: recorded by one context's compile, replayed by a fresh one, refused ones never run. */
class ProgramBlobsTest {
    private static final int N = 64;

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

    private static List<byte[]> recorded(DeviceContext c, String source) {
        try (DeviceContext.Session s = c.record()) {
            c.program(source);
            c.program(source); // asked twice, recorded once
            return s.blobs();
        }
    }

    @Test
    void aFreshContextReplaysTheBinaryAndComputesTheSame() {
        GpuDevice dev = device();
        String source = source("round trip " + System.nanoTime());
        float[] built;
        List<byte[]> blobs;
        try (DeviceContext a = new DeviceContext(dev)) {
            blobs = recorded(a, source);
            assertEquals(1, blobs.size());
            built = run(a, source);
            assertEquals(1, a.programStats().builtFromSource());
        }
        try (DeviceContext b = new DeviceContext(dev)) {
            try (DeviceContext.Session s = b.replay(blobs)) {
                b.program(source);
                assertEquals(1, s.blobs().size(), "a compile from blobs gives them again");
            }
            float[] loaded = run(b, source);
            DeviceContext.ProgramStats st = b.programStats();
            assertEquals(1, st.loadedBinaries(), st.toString());
            assertEquals(0, st.builtFromSource(), st.toString());
            assertTrue(st.describe().contains("0 built from source, 1 loaded from binaries"), st.describe());
            assertArrayEquals(expected(), loaded, 1e-5f);
            assertArrayEquals(built, loaded, 0f);
        }
    }

    @Test
    void aGarbageBinaryOrAMissingProgramFailsTheReplay() {
        GpuDevice dev = device();
        String source = source("garbage " + System.nanoTime());
        byte[] good;
        try (DeviceContext a = new DeviceContext(dev)) {
            good = recorded(a, source).get(0);
        }
        byte[] garbage = good.clone();
        Arrays.fill(garbage, 36, garbage.length, (byte) 'x');
        try (DeviceContext c = new DeviceContext(dev)) {
            try (DeviceContext.Session s = c.replay(List.of(garbage))) {
                DeviceContext.BlobRefusedException x = assertThrows(DeviceContext.BlobRefusedException.class,
                        () -> c.program(source));
                assertTrue(x.getMessage().contains("refused the program binary"), x.getMessage());
            }
            assertEquals(1, c.programStats().refusedBinaries());
            try (DeviceContext.Session s = c.replay(List.of(good))) {
                DeviceContext.BlobRefusedException x = assertThrows(DeviceContext.BlobRefusedException.class,
                        () -> c.program(source("another " + System.nanoTime())));
                assertTrue(x.getMessage().contains("hold no binary"), x.getMessage());
            }
            assertEquals(0, c.programStats().builtFromSource(), "nothing built from source while replaying");
            // outside a replay the context builds from source as before
            assertArrayEquals(expected(), run(c, source), 1e-5f);
            assertEquals(1, c.programStats().builtFromSource());
        }
    }

    @Test
    void malformedBlobsAreRefusedByIndex() {
        try (DeviceContext c = new DeviceContext(device())) {
            for (byte[] bad : List.of(new byte[3], new byte[36], new byte[] {0, 0, 0, 5, 1, 2, 3, 4, 5, 6})) {
                DeviceContext.BlobRefusedException x = assertThrows(DeviceContext.BlobRefusedException.class,
                        () -> c.replay(List.of(bad)));
                assertTrue(x.getMessage().startsWith("blob 0 of 1"), x.getMessage());
            }
        }
    }

    @Test
    void theIdentityCoversDeviceDriverAndOptions() {
        GpuDevice dev = device();
        GpuDevice otherDriver = new GpuDevice(dev.index(), dev.platform(), dev.id(), dev.name(), dev.vendor(),
                dev.platformName(), dev.driverVersion() + ".1", dev.openclVersion(), dev.type(), dev.globalMemBytes(),
                dev.maxAllocBytes(), dev.localMemBytes(), dev.computeUnits(), dev.maxWorkGroupSize(), dev.extensions());
        try (DeviceContext c = new DeviceContext(dev); DeviceContext o = new DeviceContext(otherDriver)) {
            for (String part : new String[] {dev.name(), dev.vendor(), dev.driverVersion(), dev.openclVersion(),
                    dev.platformName(), "-cl-std=CL1.2"}) {
                assertTrue(c.identity().contains(part), part);
            }
            assertFalse(c.identity().equals(o.identity()));
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
