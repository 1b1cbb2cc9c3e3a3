package io.partita.gpu.internal.exec;

import static org.jocl.CL.clReleaseKernel;
import static org.jocl.CL.clReleaseMemObject;

import java.lang.ref.Cleaner;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jocl.CLException;
import org.jocl.cl_mem;

import io.partita.cache.CacheKey;
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
    }

    public List<Step> steps() {
        return steps;
    }

    @Override
    public void execute(Stream stream, List<Tensor> in, List<Tensor> out) {
        Queue queue = queue(stream);
        cl_mem[] buffers = new cl_mem[slotBytes.length];
        Lease[] leases = new Lease[inputs];
        try {
            for (int i = 0; i < inputs; i++) {
                if (constant[i]) {
                    leases[i] = constant(queue, i, in.get(i));
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
                if (s < inputs && leases[s] != null) {
                    leases[s].close();
                } else if (buffers[s] != null) {
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
