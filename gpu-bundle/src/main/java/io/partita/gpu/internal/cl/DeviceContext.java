package io.partita.gpu.internal.cl;

import static org.jocl.CL.CL_MEM_COPY_HOST_PTR;
import static org.jocl.CL.CL_MEM_READ_ONLY;
import static org.jocl.CL.CL_MEM_READ_WRITE;
import static org.jocl.CL.CL_PROGRAM_BUILD_LOG;
import static org.jocl.CL.clBuildProgram;
import static org.jocl.CL.clCreateBuffer;
import static org.jocl.CL.clCreateCommandQueueWithProperties;
import static org.jocl.CL.clCreateContext;
import static org.jocl.CL.clCreateProgramWithSource;
import static org.jocl.CL.clGetProgramBuildInfo;
import static org.jocl.CL.clReleaseContext;
import static org.jocl.CL.clReleaseProgram;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_device_id;
import org.jocl.cl_mem;
import org.jocl.cl_program;
import org.jocl.cl_queue_properties;

import io.partita.graph.PartitaException;

/**
 * One OpenCL context on one device: builds programs (once per source text, shared by every
 * partition that generates the same source), creates buffers and queues, and counts transfers.
 */
public final class DeviceContext implements AutoCloseable {
    private final GpuDevice device;
    private final cl_context context;
    private final Transfers transfers = new Transfers();
    private final Map<String, cl_program> programs = new ConcurrentHashMap<>();

    public DeviceContext(GpuDevice device) {
        this.device = device;
        this.context = clCreateContext(null, 1, new cl_device_id[] {device.id()}, null, null, null);
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
        cl_program p = clCreateProgramWithSource(context, 1, new String[] {source}, null, null);
        try {
            clBuildProgram(p, 1, new cl_device_id[] {device.id()}, "-cl-std=CL1.2", null, null);
        } catch (CLException e) {
            String log = buildLog(p);
            clReleaseProgram(p);
            throw new PartitaException("OpenCL program build failed on " + device.name() + ": " + e.getMessage()
                    + "\n" + log + "\nsource:\n" + source);
        }
        return p;
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
