package io.partita.gpu.internal.cl;

import static org.jocl.CL.clReleaseMemObject;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

import org.jocl.cl_mem;

import io.partita.cache.ConstantBuffer;

/**
 * A constant tensor on a device, held by the unified constant tensor cache of engine kind gpu.
 * The cache frees it (releasing the {@code cl_mem}) once it has left the cache and its last lease
 * has closed.
 */
public final class DeviceConstant implements ConstantBuffer {
    private static final AtomicLong LIVE = new AtomicLong();

    private final cl_mem mem;
    private final long bytes;

    DeviceConstant(cl_mem mem, long bytes) {
        this.mem = mem;
        this.bytes = bytes;
        LIVE.incrementAndGet();
    }

    /** Device constants created and not yet freed, in this process. */
    public static long live() {
        return LIVE.get();
    }

    public cl_mem mem() {
        return mem;
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    /** Device memory has no host view. */
    @Override
    public MemorySegment segment() {
        throw new UnsupportedOperationException("a gpu constant lives in device memory; it has no host segment");
    }

    @Override
    public void free() {
        clReleaseMemObject(mem);
        LIVE.decrementAndGet();
    }
}
