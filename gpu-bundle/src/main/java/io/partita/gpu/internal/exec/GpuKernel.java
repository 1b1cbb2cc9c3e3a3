package io.partita.gpu.internal.exec;

import static org.jocl.CL.CL_KERNEL_FUNCTION_NAME;
import static org.jocl.CL.CL_KERNEL_PROGRAM;
import static org.jocl.CL.clCreateKernel;
import static org.jocl.CL.clGetKernelInfo;
import static org.jocl.CL.clReleaseKernel;
import static org.jocl.CL.clReleaseMemObject;
import static org.jocl.CL.clSetKernelArg;

import java.lang.ref.Cleaner;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import java.util.concurrent.atomic.AtomicLong;

import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.jocl.cl_program;

import io.partita.cache.CacheKey;
import io.partita.cache.CaptureMemo;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Lease;
import io.partita.cache.SourceMemory;
import io.partita.graph.LogicalTensor;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.gpu.internal.cl.DeviceConstant;
import io.partita.gpu.internal.cl.DeviceContext;
import io.partita.gpu.internal.cl.Queue;
import io.partita.gpu.internal.cl.QueryOut;
import io.partita.spi.Kernel;

/**
 * A compiled partition on one device. Each call creates device buffers for the partition's ports
 * and scratch, copies the inputs in, runs the steps on the stream's queue and copies the outputs
 * back: the only host-device traffic, counted by the device's {@code Transfers}. Tensors of the gpu
 * engine live in host memory; keeping them on the device between partitions is a later step.
 *
 * <p>Constant inputs are copied to the device once and kept in the unified constant tensor cache
 * of the device ({@code gpu.N}), under backend id {@code gpu} and a key naming the tensor's
 * description and its host memory (address and arena), so other weights get other entries.
 *
 * <p>Calls are memoized per capture set (the identity of every input's and output's host memory,
 * weakly referenced, and their dimensions; see {@link CaptureMemo}): the first call with a capture
 * set records device buffers for the ports and scratch and one kernel object per step with all its
 * arguments set (constant inputs: the device copy the constant cache holds, part of the capture set); later calls with the same capture set
 * only copy the inputs in (head), enqueue the pre-bound kernels (static body) and copy the outputs
 * back (tail). An entry serves one call at a time; concurrent calls record entries of their own.
 * Eviction from the small LRU (system property {@code partita.memo.entries}, default 4), the
 * collection of a captured arena or closing this kernel releases the entry's OpenCL objects.
 * {@code -Dpartita.memo=false} or {@code CaptureMemo.setEnabled(false)} turns replaying off (every call
 * then creates, binds and releases everything itself).
 */
public final class GpuKernel implements Kernel {
    private static final Cleaner QUEUES = Cleaner.create();

    /** The backend key of a constant copied to the device. */
    record ConstantKey(LogicalTensor tensor, SourceMemory data) {
    }

    private final DeviceContext device;
    private final long[] slotBytes;
    private final int inputs;
    private final boolean[] constant;
    private final boolean[] uploadOutput;
    private final List<Step> steps;
    private final ConstantTensorCache cache;
    /** Keys this kernel put into the constant cache, to drop them once their host memory is released. */
    private final Set<CacheKey> added = ConcurrentHashMap.newKeySet();
    /** Recordings per capture set, or null when memoization is off. */
    private final CaptureMemo<Recording> memo;
    /** Per step: its program and kernel function, to create the kernel objects of a recording. */
    private final cl_program[] programs;
    private final String[] functions;
    private static final AtomicLong LIVE_RECORDINGS = new AtomicLong();
    private static final java.util.concurrent.atomic.LongAdder RECORDED = new java.util.concurrent.atomic.LongAdder();
    private static final java.util.concurrent.atomic.LongAdder REPLAYED = new java.util.concurrent.atomic.LongAdder();

    /**
     * What one capture set records: device buffers per slot and pre-bound kernel objects. The slots
     * of constant inputs borrow the device copy leased by the call (the capture names that copy, so
     * a copy the constant cache replaced never matches again); those are not released here.
     */
    private static final class Recording {
        final cl_mem[] buffers;
        final boolean[] borrowed;
        final cl_kernel[] kernels;

        Recording(int slots, int steps) {
            buffers = new cl_mem[slots];
            borrowed = new boolean[slots];
            kernels = new cl_kernel[steps];
            LIVE_RECORDINGS.incrementAndGet();
        }

        void release() {
            for (cl_kernel k : kernels) {
                if (k != null) {
                    quietly(() -> clReleaseKernel(k));
                }
            }
            for (int s = 0; s < buffers.length; s++) {
                if (buffers[s] != null && !borrowed[s]) {
                    cl_mem m = buffers[s];
                    quietly(() -> clReleaseMemObject(m));
                }
            }
            LIVE_RECORDINGS.decrementAndGet();
        }
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (CLException e) {
            // the context went first (backend closed): its objects are gone with it
        }
    }

    /** The program binaries this kernel's steps use, as cache blobs; set once, right after planning. */
    private volatile List<byte[]> cacheBlobs = List.of();

    /** Sets the cache blobs (the programs the planner asked for); called once by the backend after planning. */
    public void attachCacheBlobs(List<byte[]> blobs) {
        this.cacheBlobs = List.copyOf(blobs);
    }

    @Override
    public List<byte[]> cacheBlobs() {
        return cacheBlobs;
    }

    /**
     * @param slotBytes bytes of each slot: the partition inputs, then outputs, then scratch
     * @param uploadOutput per output: its host contents go to the device first, because the kernels
     *     write only the elements its strides address and the gaps must survive the copy back
     * @param cache the device's constant tensor cache, for the inputs whose property is constant
     */
    public GpuKernel(DeviceContext device, long[] slotBytes, List<LogicalTensor> inputs, boolean[] uploadOutput,
            List<Step> steps, ConstantTensorCache cache) {
        this.device = device;
        this.slotBytes = slotBytes.clone();
        this.inputs = inputs.size();
        this.constant = new boolean[this.inputs];
        for (int i = 0; i < this.inputs; i++) {
            constant[i] = inputs.get(i).property() == PropertyType.CONSTANT;
        }
        this.uploadOutput = uploadOutput.clone();
        this.steps = List.copyOf(steps);
        this.cache = cache;
        int n = this.steps.size();
        this.programs = new cl_program[n];
        this.functions = new String[n];
        boolean memoize = true;
        for (int i = 0; i < n && memoize; i++) {
            cl_kernel k = this.steps.get(i).kernel();
            if (k == null) {
                memoize = false;
                break;
            }
            programs[i] = new cl_program();
            clGetKernelInfo(k, CL_KERNEL_PROGRAM, Sizeof.cl_program, Pointer.to(programs[i]), null);
            long[] size = new long[1];
            clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 0, null, size);
            QueryOut name = QueryOut.of(size[0]);
            clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, size[0], name.pointer(), null);
            functions[i] = name.asString();
        }
        this.memo = memoize ? new CaptureMemo<>(CaptureMemo.defaultCapacity(), Recording::release) : null;
    }

    /** The memo of recordings per capture set, or null when memoization is off. */
    public CaptureMemo<?> memo() {
        return memo;
    }

    /** Recordings (memo entries) not yet released, in this process. */
    public static long liveRecordings() {
        return LIVE_RECORDINGS.get();
    }

    /** Memoized calls that recorded (misses), in this process. */
    public static long recordedCalls() {
        return RECORDED.sum();
    }

    /** Memoized calls that replayed a recording (hits), in this process. */
    public static long replayedCalls() {
        return REPLAYED.sum();
    }

    public List<Step> steps() {
        return steps;
    }

    @Override
    public void execute(Stream stream, List<Tensor> in, List<Tensor> out) {
        if (memo == null || !CaptureMemo.enabled()) {
            executeOnce(stream, in, out);
            return;
        }
        Queue queue = queue(stream);
        Lease[] leases = new Lease[inputs];
        try {
            CaptureMemo.Capture c = new CaptureMemo.Capture();
            for (int i = 0; i < inputs; i++) {
                Tensor t = in.get(i);
                c.memory(t.data()).values(t.logicalTensor().dims());
                if (constant[i]) {
                    leases[i] = constant(queue, i, t); // a hit of the constant cache once warm
                    if (!leases[i].isCached()) {
                        // a private copy (no room in the cache): a recording could never be replayed
                        executeWith(queue, leases, in, out);
                        return;
                    }
                    c.target(leases[i].buffer());
                }
            }
            for (Tensor t : out) {
                c.memory(t.data()).values(t.logicalTensor().dims());
            }
            try (CaptureMemo.Entry<Recording> e = memo.acquire(c, () -> record(leases))) {
                (e.recorded() ? RECORDED : REPLAYED).increment();
                replay(queue, e.value(), in, out);
            }
        } finally {
            for (Lease l : leases) {
                if (l != null) {
                    l.close();
                }
            }
        }
    }

    /** Device buffers and kernel objects with every argument set, for one capture set. */
    private Recording record(Lease[] leases) {
        Recording r = new Recording(slotBytes.length, steps.size());
        try {
            for (int i = 0; i < inputs; i++) {
                if (constant[i]) {
                    r.buffers[i] = ((DeviceConstant) leases[i].buffer()).mem();
                    r.borrowed[i] = true;
                } else {
                    r.buffers[i] = device.buffer(slotBytes[i]);
                }
            }
            for (int s = inputs; s < slotBytes.length; s++) {
                r.buffers[s] = device.buffer(slotBytes[s]);
            }
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                cl_kernel k = clCreateKernel(programs[i], functions[i], null);
                r.kernels[i] = k;
                int a = 0;
                for (int s : step.slots()) {
                    clSetKernelArg(k, a++, Sizeof.cl_mem, Pointer.to(r.buffers[s]));
                }
                clSetKernelArg(k, a++, Sizeof.cl_mem, Pointer.to(step.meta()));
                if (step.scalar() != null) {
                    clSetKernelArg(k, a, Sizeof.cl_float, Pointer.to(new float[] {step.scalar()}));
                }
            }
            return r;
        } catch (RuntimeException | Error e) {
            r.release();
            throw e;
        }
    }

    /** Head (inputs in), static body (pre-bound launches), tail (outputs back). */
    private void replay(Queue queue, Recording r, List<Tensor> in, List<Tensor> out) {
        for (int i = 0; i < inputs; i++) {
            if (!constant[i]) {
                queue.write(r.buffers[i], in.get(i).data(), slotBytes[i]);
            }
        }
        for (int o = 0; o < out.size(); o++) {
            if (uploadOutput[o]) {
                queue.write(r.buffers[inputs + o], out.get(o).data(), slotBytes[inputs + o]);
            }
        }
        for (int i = 0; i < r.kernels.length; i++) {
            Step step = steps.get(i);
            if (!step.empty()) {
                queue.launch(r.kernels[i], step.global(), step.local());
            }
        }
        for (int o = 0; o < out.size(); o++) {
            queue.read(out.get(o).data(), r.buffers[inputs + o], slotBytes[inputs + o]);
        }
    }

    /** The unmemoized path: buffers created, arguments set and everything released per call. */
    private void executeOnce(Stream stream, List<Tensor> in, List<Tensor> out) {
        Lease[] leases = new Lease[inputs];
        try {
            executeWith(queue(stream), leases, in, out);
        } finally {
            for (Lease l : leases) {
                if (l != null) {
                    l.close();
                }
            }
        }
    }

    /** Runs unmemoized; constant leases already in {@code leases} are used, missing ones taken (the caller closes them). */
    private void executeWith(Queue queue, Lease[] leases, List<Tensor> in, List<Tensor> out) {
        cl_mem[] buffers = new cl_mem[slotBytes.length];
        try {
            for (int i = 0; i < inputs; i++) {
                if (constant[i]) {
                    if (leases[i] == null) {
                        leases[i] = constant(queue, i, in.get(i));
                    }
                    buffers[i] = ((DeviceConstant) leases[i].buffer()).mem();
                } else {
                    buffers[i] = device.buffer(slotBytes[i]);
                    queue.write(buffers[i], in.get(i).data(), slotBytes[i]);
                }
            }
            for (int s = inputs; s < buffers.length; s++) {
                buffers[s] = device.buffer(slotBytes[s]);
            }
            for (int o = 0; o < out.size(); o++) {
                if (uploadOutput[o]) {
                    queue.write(buffers[inputs + o], out.get(o).data(), slotBytes[inputs + o]);
                }
            }
            for (Step step : steps) {
                step.launch(queue, buffers);
            }
            for (int o = 0; o < out.size(); o++) {
                queue.read(out.get(o).data(), buffers[inputs + o], slotBytes[inputs + o]);
            }
        } finally {
            for (int s = 0; s < buffers.length; s++) {
                if (buffers[s] != null && !(s < inputs && constant[s])) {
                    clReleaseMemObject(buffers[s]);
                }
            }
        }
    }

    /** A lease on the device copy of constant input {@code i}, copied now on a miss. */
    private Lease constant(Queue queue, int i, Tensor t) {
        long bytes = slotBytes[i];
        CacheKey key = new CacheKey(io.partita.gpu.internal.GpuBackend.ID,
                new ConstantKey(t.logicalTensor(), SourceMemory.of(t.data())));
        // Producing again costs a host-to-device copy of the tensor.
        return cache.getOrAdd(key, bytes, 2 * bytes, () -> {
            dropReleased(); // a miss: entries copied from memory whose arena has closed can never be hit again
            added.add(key);
            return queue.upload(t.data(), bytes);
        }, null);
    }

    private void dropReleased() {
        for (CacheKey k : added) {
            if (!((ConstantKey) k.backendKey()).data().isAlive()) {
                cache.removeIfExist(k);
                added.remove(k);
            }
        }
    }

    /** The stream's queue on this device, released when the stream becomes unreachable. */
    private Queue queue(Stream stream) {
        return stream.attachment(device, Queue.class, s -> {
            Queue q = device.newQueue();
            QUEUES.register(s, q::release);
            return q;
        });
    }

    @Override
    public void close() {
        if (memo != null) {
            memo.close(); // before the step kernels and metadata the recordings use
        }
        added.forEach(cache::removeIfExist);
        added.clear();
        for (Step s : steps) {
            try {
                clReleaseKernel(s.kernel());
                clReleaseMemObject(s.meta());
            } catch (CLException e) {
                // the context went first (backend closed): its objects are gone with it
            }
        }
    }
}
