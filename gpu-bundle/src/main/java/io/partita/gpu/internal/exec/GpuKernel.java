package io.partita.gpu.internal.exec;

import static org.jocl.CL.clReleaseKernel;
import static org.jocl.CL.clReleaseMemObject;

import java.lang.ref.Cleaner;
import java.util.List;

import org.jocl.CLException;
import org.jocl.cl_mem;

import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.gpu.internal.cl.DeviceContext;
import io.partita.gpu.internal.cl.Queue;
import io.partita.spi.Kernel;

/**
 * A compiled partition on one device. Each call creates device buffers for the partition's ports
 * and scratch, copies the inputs in, runs the steps on the stream's queue and copies the outputs
 * back: the only host-device traffic, counted by the device's {@code Transfers}. Tensors of the gpu
 * engine live in host memory; keeping them on the device between partitions is a later step.
 */
public final class GpuKernel implements Kernel {
    private static final Cleaner QUEUES = Cleaner.create();

    private final DeviceContext device;
    private final long[] slotBytes;
    private final int inputs;
    private final boolean[] uploadOutput;
    private final List<Step> steps;

    /**
     * @param slotBytes bytes of each slot: the partition inputs, then outputs, then scratch
     * @param uploadOutput per output: its host contents go to the device first, because the kernels
     *     write only the elements its strides address and the gaps must survive the copy back
     */
    public GpuKernel(DeviceContext device, long[] slotBytes, int inputs, boolean[] uploadOutput, List<Step> steps) {
        this.device = device;
        this.slotBytes = slotBytes.clone();
        this.inputs = inputs;
        this.uploadOutput = uploadOutput.clone();
        this.steps = List.copyOf(steps);
    }

    public List<Step> steps() {
        return steps;
    }

    @Override
    public void execute(Stream stream, List<Tensor> in, List<Tensor> out) {
        Queue queue = queue(stream);
        cl_mem[] buffers = new cl_mem[slotBytes.length];
        try {
            for (int s = 0; s < buffers.length; s++) {
                buffers[s] = device.buffer(slotBytes[s]);
            }
            for (int i = 0; i < inputs; i++) {
                queue.write(buffers[i], in.get(i).data(), slotBytes[i]);
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
            for (cl_mem m : buffers) {
                if (m != null) {
                    clReleaseMemObject(m);
                }
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
