package io.partita.gpu.internal.cl;

import static org.jocl.CL.CL_TRUE;
import static org.jocl.CL.clEnqueueNDRangeKernel;
import static org.jocl.CL.clEnqueueReadBuffer;
import static org.jocl.CL.clEnqueueWriteBuffer;
import static org.jocl.CL.clFinish;
import static org.jocl.CL.clReleaseCommandQueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.jocl.Pointer;
import org.jocl.cl_command_queue;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;

import io.partita.graph.Stream;

/**
 * An in-order command queue, kept as a {@link Stream} attachment so that each stream has its own.
 * Copies block until done (the host memory of a {@code Tensor} may be reused as soon as
 * {@code execute} returns) and are counted in the device's {@link Transfers}.
 */
public final class Queue implements Stream.Waitable {
    private final DeviceContext device;
    private final cl_command_queue queue;

    Queue(DeviceContext device, cl_command_queue queue) {
        this.device = device;
        this.queue = queue;
    }

    public DeviceContext device() {
        return device;
    }

    /** Copies {@code bytes} from host memory to the start of a device buffer. */
    public void write(cl_mem dst, MemorySegment src, long bytes) {
        if (bytes == 0) {
            return;
        }
        if (src.isNative()) {
            clEnqueueWriteBuffer(queue, dst, CL_TRUE, 0, bytes, Pointer.to(src.asSlice(0, bytes).asByteBuffer()), 0, null,
                    null);
        } else {
            // Heap memory may move during a native call: stage it in native memory.
            try (Arena a = Arena.ofConfined()) {
                MemorySegment staged = a.allocate(bytes, 64).copyFrom(src.asSlice(0, bytes));
                clEnqueueWriteBuffer(queue, dst, CL_TRUE, 0, bytes, Pointer.to(staged.asByteBuffer()), 0, null, null);
            }
        }
        device.transfers().countToDevice(bytes);
    }

    /** Copies {@code bytes} from the start of a device buffer to host memory. */
    public void read(MemorySegment dst, cl_mem src, long bytes) {
        if (bytes == 0) {
            return;
        }
        if (dst.isNative()) {
            clEnqueueReadBuffer(queue, src, CL_TRUE, 0, bytes, Pointer.to(dst.asSlice(0, bytes).asByteBuffer()), 0, null,
                    null);
        } else {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment staged = a.allocate(bytes, 64);
                clEnqueueReadBuffer(queue, src, CL_TRUE, 0, bytes, Pointer.to(staged.asByteBuffer()), 0, null, null);
                dst.asSlice(0, bytes).copyFrom(staged);
            }
        }
        device.transfers().countToHost(bytes);
    }

    /** A device copy of host memory, for the constant tensor cache (the copy is counted). */
    public DeviceConstant upload(MemorySegment src, long bytes) {
        cl_mem m = device.buffer(bytes);
        try {
            write(m, src, bytes);
        } catch (RuntimeException e) {
            org.jocl.CL.clReleaseMemObject(m);
            throw e;
        }
        return new DeviceConstant(m, bytes);
    }

    /** Enqueues a kernel whose arguments are set; {@code local} may be null (the driver picks). */
    public void launch(cl_kernel kernel, long[] global, long[] local) {
        clEnqueueNDRangeKernel(queue, kernel, global.length, null, global, local, 0, null, null);
    }

    @Override
    public void waitAll() {
        clFinish(queue);
    }

    public void release() {
        clReleaseCommandQueue(queue);
    }
}
