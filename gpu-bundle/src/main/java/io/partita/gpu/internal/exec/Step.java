package io.partita.gpu.internal.exec;

import static org.jocl.CL.clSetKernelArg;

import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;

import io.partita.gpu.internal.cl.Queue;

/**
 * One kernel launch of a partition: the buffer arguments by slot (partition inputs, outputs, then
 * scratch), then the metadata buffer, then an optional float scalar.
 */
public record Step(String name, cl_kernel kernel, int[] slots, cl_mem meta, Float scalar, long[] global, long[] local) {

    /** An empty tensor: nothing to compute. */
    boolean empty() {
        for (long g : global) {
            if (g == 0) {
                return true;
            }
        }
        return false;
    }

    void launch(Queue queue, cl_mem[] buffers) {
        if (empty()) {
            return;
        }
        // Arguments are captured when the launch is enqueued, so holding the kernel's lock across
        // set-and-enqueue lets concurrent executions share one kernel object.
        synchronized (kernel) {
            int a = 0;
            for (int s : slots) {
                clSetKernelArg(kernel, a++, Sizeof.cl_mem, Pointer.to(buffers[s]));
            }
            clSetKernelArg(kernel, a++, Sizeof.cl_mem, Pointer.to(meta));
            if (scalar != null) {
                clSetKernelArg(kernel, a, Sizeof.cl_float, Pointer.to(new float[] {scalar}));
            }
            queue.launch(kernel, global, local);
        }
    }
}
