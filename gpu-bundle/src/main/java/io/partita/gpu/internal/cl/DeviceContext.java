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

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
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

import io.partita.graph.PartitaException;

/**
 * One OpenCL context on one device: builds programs (once per source text, shared by every
 * partition that generates the same source), creates buffers and queues, and counts transfers.
 *
 * <p>Cache blobs: while a compile {@linkplain #record() records}, every program it asks for is noted
 * with its binary ({@code CL_PROGRAM_BINARIES}): the compiled partition's blobs. A compile from blobs
 * {@linkplain #replay replays} them: a program missing in memory is created from the offered binary
 * with clCreateProgramWithBinary and clBuildProgram, so the driver checks it; a program not offered, or
 * a binary the driver refuses, fails the compile from blobs (the runtime then compiles from scratch).
 */
public final class DeviceContext implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceContext.class);
    private static final String OPTIONS = "-cl-std=CL1.2";

    private final GpuDevice device;
    private final cl_context context;
    private final Transfers transfers = new Transfers();
    private final Map<String, Built> programs = new ConcurrentHashMap<>();
    /** This thread's compile: programs asked for (to record) or offered (to replay); null outside one. */
    private final ThreadLocal<Session> session = new ThreadLocal<>();
    private final AtomicLong builtFromSource = new AtomicLong();
    private final AtomicLong loadedBinaries = new AtomicLong();
    private final AtomicLong refusedBinaries = new AtomicLong();
    private final AtomicLong buildNanos = new AtomicLong();

    /** A built program, its key (SHA-256 of source and options) and its binary (null when the driver gives none). */
    private record Built(cl_program program, byte[] key, byte[] binary) {
    }

    /** Programs of this device: built from source, created from blob binaries, blob binaries refused. */
    public record ProgramStats(long builtFromSource, long loadedBinaries, long refusedBinaries, long nanos) {
        public String describe() {
            return String.format(java.util.Locale.ROOT, "programs: %d built from source, %d loaded from binaries%s, %d ms",
                    builtFromSource, loadedBinaries, refusedBinaries > 0 ? " (" + refusedBinaries + " refused)" : "",
                    nanos / 1_000_000);
        }
    }

    /** A blob could not be replayed: malformed, missing for a program the compile needs, or refused by the driver. */
    public static final class BlobRefusedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BlobRefusedException(String message) {
            super(message);
        }
    }

    /** One compile's view: the programs it asked for, and (replaying) the binaries offered by program key. */
    public final class Session implements AutoCloseable {
        private final java.util.LinkedHashMap<String, byte[]> used = new java.util.LinkedHashMap<>();
        private final Map<String, byte[]> offered;
        private final Session outer;
        private boolean complete = true;

        private Session(Map<String, byte[]> offered) {
            this.offered = offered;
            this.outer = session.get();
            session.set(this);
        }

        /**
         * The programs asked for, as blobs ({@code int keyLength, key, binary}) in first-use order; empty
         * when the driver gave no binary for one of them (then a compile from blobs could not skip it).
         */
        public List<byte[]> blobs() {
            if (!complete) {
                return List.of();
            }
            List<byte[]> out = new java.util.ArrayList<>(used.size());
            for (Map.Entry<String, byte[]> e : used.entrySet()) {
                out.add(io.partita.spi.KeyedBlobs.encode(java.util.HexFormat.of().parseHex(e.getKey()), e.getValue()));
            }
            return out;
        }

        @Override
        public void close() {
            if (outer == null) {
                session.remove();
            } else {
                session.set(outer);
            }
        }
    }

    public DeviceContext(GpuDevice device) {
        this.device = device;
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

    /** What program binaries depend on besides their source: device, vendor, driver, OpenCL version, platform, options. */
    public String identity() {
        return String.join("|", device.name(), device.vendor(), device.driverVersion(), device.openclVersion(),
                device.platformName(), OPTIONS);
    }

    /** Starts recording the programs this thread's compile asks for; close it when the compile is done. */
    public Session record() {
        return new Session(null);
    }

    /**
     * Starts a compile from blobs on this thread: programs come from these binaries (or memory), never
     * from source.
     *
     * @throws BlobRefusedException naming a blob that is not {@code int keyLength, key, binary}
     */
    public Session replay(List<byte[]> blobs) {
        try {
            return new Session(io.partita.spi.KeyedBlobs.decode(blobs, 32, "program binary"));
        } catch (IllegalArgumentException e) {
            throw new BlobRefusedException(e.getMessage());
        }
    }

    /**
     * The program for this source, built on first request.
     *
     * @throws PartitaException with the compiler's log when the source does not build
     * @throws BlobRefusedException replaying, when the blobs lack the program or the driver refuses its binary
     */
    public cl_program program(String source) {
        Session s = session.get();
        Built b = programs.computeIfAbsent(source, src -> build(src, s));
        if (s != null) {
            if (b.binary() == null) {
                s.complete = false;
            } else {
                s.used.put(java.util.HexFormat.of().formatHex(b.key()), b.binary());
            }
        }
        return b.program();
    }

    private Built build(String source, Session s) {
        long t0 = System.nanoTime();
        try {
            byte[] key = key(source);
            if (s != null && s.offered != null) {
                byte[] binary = s.offered.get(java.util.HexFormat.of().formatHex(key));
                if (binary == null) {
                    throw new BlobRefusedException("the blobs hold no binary for a program the partition needs ("
                            + source.length() + " characters of source)");
                }
                return new Built(fromBinary(binary), key, binary);
            }
            cl_program p = fromSource(source);
            return new Built(p, key, binary(p));
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

    /** The program created from a binary; the driver checks it, and one it refuses is never run. */
    private cl_program fromBinary(byte[] binary) {
        String why;
        cl_program p = null;
        int[] binaryStatus = {CL_SUCCESS};
        int[] err = {CL_SUCCESS};
        try {
            p = clCreateProgramWithBinary(context, 1, new cl_device_id[] {device.id()}, new long[] {binary.length},
                    new byte[][] {binary}, binaryStatus, err);
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
        if (p != null) {
            release(p);
        }
        refusedBinaries.incrementAndGet();
        throw new BlobRefusedException("gpu." + device.index() + " (" + device.name() + ") refused the program binary ("
                + why + ")");
    }

    private static byte[] key(String source) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            sha.update(OPTIONS.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(source.getBytes(StandardCharsets.UTF_8));
            return sha.digest();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /** The device binary of a built program, or null if the driver offers none. */
    private byte[] binary(cl_program p) {
        try {
            QueryOut sizes = QueryOut.of(Long.BYTES);
            clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, Sizeof.size_t, sizes.pointer(), null);
            long size = Sizeof.size_t == Integer.BYTES ? sizes.asInt() : sizes.asLong();
            if (size <= 0 || size > Integer.MAX_VALUE) {
                return null;
            }
            QueryOut binary = QueryOut.of(size);
            clGetProgramInfo(p, CL_PROGRAM_BINARIES, Sizeof.POINTER, Pointer.to(binary.pointer()), null);
            return binary.bytes();
        } catch (CLException e) {
            LOG.debug("gpu.{}: no program binary to store ({})", device.index(), e.getMessage());
            return null;
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
            QueryOut b = QueryOut.of(size[0]);
            clGetProgramBuildInfo(p, device.id(), CL_PROGRAM_BUILD_LOG, size[0], b.pointer(), null);
            return b.asString();
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
        programs.values().forEach(b -> {
            try {
                clReleaseProgram(b.program());
            } catch (CLException e) {
                // released while closing: nothing else can use it
            }
        });
        programs.clear();
        clReleaseContext(context);
    }
}
