package io.partita.gpu.internal.cl;

import static org.jocl.CL.CL_MEM_COPY_HOST_PTR;
import static org.jocl.CL.CL_MEM_READ_ONLY;
import static org.jocl.CL.CL_MEM_READ_WRITE;
import static org.jocl.CL.CL_PROGRAM_BINARIES;
import static org.jocl.CL.CL_PROGRAM_BINARY_SIZES;
import static org.jocl.CL.CL_PROGRAM_BUILD_LOG;
import static org.jocl.CL.CL_SUCCESS;
import static org.jocl.CL.clBuildProgram;
import static org.jocl.CL.clCreateBuffer;
import static org.jocl.CL.clCreateCommandQueueWithProperties;
import static org.jocl.CL.clCreateContext;
import static org.jocl.CL.clCreateProgramWithBinary;
import static org.jocl.CL.clCreateProgramWithSource;
import static org.jocl.CL.clGetProgramBuildInfo;
import static org.jocl.CL.clGetProgramInfo;
import static org.jocl.CL.clReleaseContext;
import static org.jocl.CL.clReleaseProgram;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_device_id;
import org.jocl.cl_mem;
import org.jocl.cl_program;
import org.jocl.cl_queue_properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.DeviceKind;
import io.partita.cache.PersistentCache;
import io.partita.graph.PartitaException;

/**
 * One OpenCL context on one device: builds programs (once per source text, shared by every
 * partition that generates the same source), creates buffers and queues, and counts transfers.
 *
 * <p>With a {@link PersistentCache} enabled for engine kind gpu, a program is first created from the
 * binary stored for its source, options and device/driver (another process built it), and a program
 * built from source has its binary stored. A stored binary goes through clCreateProgramWithBinary and
 * clBuildProgram like any other, so the driver checks it; one it refuses is removed from the store and
 * the program is built from source.
 */
public final class DeviceContext implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceContext.class);
    private static final String OPTIONS = "-cl-std=CL1.2";
    /** Changes whenever the key's layout does (an old entry then never matches). */
    private static final String KEY_FORMAT = "partita.gpu.program/1";
    private static final String PARTITA_VERSION = "0.1.0";

    private final GpuDevice device;
    private final cl_context context;
    private final Transfers transfers = new Transfers();
    private final Map<String, cl_program> programs = new ConcurrentHashMap<>();
    private final PersistentCache persistent;
    private final String backend;
    private final AtomicLong builtFromSource = new AtomicLong();
    private final AtomicLong loadedBinaries = new AtomicLong();
    private final AtomicLong refusedBinaries = new AtomicLong();
    private final AtomicLong buildNanos = new AtomicLong();

    /** Programs of this device: built from source, created from a stored binary, stored binaries refused. */
    public record ProgramStats(long builtFromSource, long loadedBinaries, long refusedBinaries, long nanos) {
        public String describe() {
            return String.format(java.util.Locale.ROOT, "programs: %d built from source, %d loaded from binaries%s, %d ms",
                    builtFromSource, loadedBinaries, refusedBinaries > 0 ? " (" + refusedBinaries + " refused)" : "",
                    nanos / 1_000_000);
        }
    }

    /** A context whose programs are built in memory only. */
    public DeviceContext(GpuDevice device) {
        this(device, null, "gpu");
    }

    /**
     * @param persistent the on-disk store of program binaries (used when enabled for engine kind gpu), or null
     * @param backend    the backend id and version, part of every stored binary's key
     */
    public DeviceContext(GpuDevice device, PersistentCache persistent, String backend) {
        this.device = device;
        this.persistent = persistent;
        this.backend = java.util.Objects.requireNonNull(backend, "backend");
        this.context = clCreateContext(null, 1, new cl_device_id[] {device.id()}, null, null, null);
    }

    public ProgramStats programStats() {
        return new ProgramStats(builtFromSource.get(), loadedBinaries.get(), refusedBinaries.get(), buildNanos.get());
    }

    public GpuDevice device() {
        return device;
    }

    public Transfers transfers() {
        return transfers;
    }

    /** Programs built so far (distinct sources). */
    public int programCount() {
        return programs.size();
    }

    /**
     * The program for this source, built on first request.
     *
     * @throws PartitaException with the compiler's log when the source does not build
     */
    public cl_program program(String source) {
        return programs.computeIfAbsent(source, this::build);
    }

    private cl_program build(String source) {
        long t0 = System.nanoTime();
        try {
            byte[] key = null;
            if (persistent != null && persistent.enabled(DeviceKind.GPU)) {
                key = persistentKey(source, OPTIONS);
                cl_program p = fromStore(key);
                if (p != null) {
                    return p;
                }
            }
            cl_program p = fromSource(source);
            if (key != null) {
                byte[] binary = binary(p);
                if (binary != null) {
                    persistent.store(DeviceKind.GPU, key, List.of(binary));
                }
            }
            return p;
        } finally {
            buildNanos.addAndGet(System.nanoTime() - t0);
        }
    }

    private cl_program fromSource(String source) {
        cl_program p = clCreateProgramWithSource(context, 1, new String[] {source}, null, null);
        try {
            clBuildProgram(p, 1, new cl_device_id[] {device.id()}, OPTIONS, null, null);
        } catch (CLException e) {
            String log = buildLog(p);
            clReleaseProgram(p);
            throw new PartitaException("OpenCL program build failed on " + device.name() + ": " + e.getMessage()
                    + "\n" + log + "\nsource:\n" + source);
        }
        builtFromSource.incrementAndGet();
        return p;
    }

    /** The program created from the stored binary, or null (none stored, or the driver refused it). */
    private cl_program fromStore(byte[] key) {
        Optional<List<byte[]>> found = persistent.load(DeviceKind.GPU, key);
        if (found.isEmpty()) {
            return null;
        }
        List<byte[]> blobs = found.get();
        String why;
        cl_program p = null;
        if (blobs.size() != 1 || blobs.get(0).length == 0) {
            why = "expected one binary, found " + blobs.size() + " blobs";
        } else {
            byte[] binary = blobs.get(0);
            int[] binaryStatus = {CL_SUCCESS};
            int[] err = {CL_SUCCESS};
            try {
                p = clCreateProgramWithBinary(context, 1, new cl_device_id[] {device.id()},
                        new long[] {binary.length}, new byte[][] {binary}, binaryStatus, err);
                if (binaryStatus[0] != CL_SUCCESS || err[0] != CL_SUCCESS) {
                    why = "binary status " + org.jocl.CL.stringFor_errorCode(binaryStatus[0]) + ", "
                            + org.jocl.CL.stringFor_errorCode(err[0]);
                } else {
                    clBuildProgram(p, 1, new cl_device_id[] {device.id()}, OPTIONS, null, null);
                    loadedBinaries.incrementAndGet();
                    return p;
                }
            } catch (CLException e) {
                why = e.getMessage() + (p == null ? "" : " " + buildLog(p));
            }
        }
        if (p != null) {
            release(p);
        }
        refusedBinaries.incrementAndGet();
        LOG.warn("gpu.{} ({}): the program binary stored in the persistent cache {} was refused ({}); building from source",
                device.index(), device.name(), persistent.directory().map(Object::toString).orElse("?"), why);
        persistent.remove(DeviceKind.GPU, key); // so the binary built now replaces it
        return null;
    }

    /** The device binary of a built program, or null if the driver offers none. */
    private byte[] binary(cl_program p) {
        try {
            long[] sizes = new long[1];
            clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, org.jocl.Sizeof.size_t, Pointer.to(sizes), null);
            if (sizes[0] <= 0 || sizes[0] > Integer.MAX_VALUE) {
                return null;
            }
            byte[] binary = new byte[(int) sizes[0]];
            clGetProgramInfo(p, CL_PROGRAM_BINARIES, Sizeof.POINTER, Pointer.to(Pointer.to(binary)), null);
            return binary;
        } catch (CLException e) {
            LOG.debug("gpu.{}: no program binary to store ({})", device.index(), e.getMessage());
            return null;
        }
    }

    /**
     * Everything a program binary depends on: the key format, backend and Partita versions, the full
     * source and build options, and the device, vendor, driver, OpenCL version and platform.
     */
    byte[] persistentKey(String source, String options) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(source.length() + 256);
            DataOutputStream out = new DataOutputStream(bytes);
            for (String s : new String[] {KEY_FORMAT, backend, PARTITA_VERSION, options, device.name(), device.vendor(),
                    device.driverVersion(), device.openclVersion(), device.platformName()}) {
                out.writeUTF(String.valueOf(s));
            }
            byte[] text = source.getBytes(StandardCharsets.UTF_8); // writeUTF stops at 64 KB
            out.writeInt(text.length);
            out.write(text);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
    }

    private static void release(cl_program p) {
        try {
            clReleaseProgram(p);
        } catch (CLException e) {
            // a program the driver refused may not be releasable: nothing else holds it
        }
    }

    private String buildLog(cl_program p) {
        try {
            long[] size = new long[1];
            clGetProgramBuildInfo(p, device.id(), CL_PROGRAM_BUILD_LOG, 0, null, size);
            byte[] b = new byte[(int) size[0]];
            clGetProgramBuildInfo(p, device.id(), CL_PROGRAM_BUILD_LOG, b.length, Pointer.to(b), null);
            return new String(b, StandardCharsets.UTF_8).trim();
        } catch (CLException e) {
            return "(no build log: " + e.getMessage() + ")";
        }
    }

    /** An uninitialized device buffer; at least 4 bytes, since OpenCL refuses empty buffers. */
    public cl_mem buffer(long bytes) {
        return clCreateBuffer(context, CL_MEM_READ_WRITE, Math.max(bytes, Sizeof.cl_float), null, null);
    }

    /** A read-only buffer holding these longs (kernel metadata), counted as a host-to-device copy. */
    public cl_mem constantLongs(long[] values) {
        long bytes = (long) Math.max(values.length, 1) * Sizeof.cl_long;
        cl_mem m = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                Pointer.to(values.length == 0 ? new long[1] : values), null);
        transfers.countToDevice(bytes);
        return m;
    }

    /** A new in-order queue on this device. */
    public Queue newQueue() {
        cl_command_queue q = clCreateCommandQueueWithProperties(context, device.id(), new cl_queue_properties(), null);
        return new Queue(this, q);
    }

    @Override
    public void close() {
        programs.values().forEach(p -> {
            try {
                clReleaseProgram(p);
            } catch (CLException e) {
                // released while closing: nothing else can use it
            }
        });
        programs.clear();
        clReleaseContext(context);
    }
}
