package io.partita.benchmarks.memo;

import static org.jocl.CL.CL_DEVICE_TYPE_ALL;
import static org.jocl.CL.CL_MEM_READ_WRITE;
import static org.jocl.CL.CL_TRUE;
import static org.jocl.CL.clBuildProgram;
import static org.jocl.CL.clCreateBuffer;
import static org.jocl.CL.clCreateCommandQueueWithProperties;
import static org.jocl.CL.clCreateContext;
import static org.jocl.CL.clCreateKernel;
import static org.jocl.CL.clCreateProgramWithSource;
import static org.jocl.CL.clEnqueueNDRangeKernel;
import static org.jocl.CL.clEnqueueReadBuffer;
import static org.jocl.CL.clEnqueueWriteBuffer;
import static org.jocl.CL.clGetDeviceIDs;
import static org.jocl.CL.clGetPlatformIDs;
import static org.jocl.CL.clReleaseCommandQueue;
import static org.jocl.CL.clReleaseContext;
import static org.jocl.CL.clReleaseKernel;
import static org.jocl.CL.clReleaseMemObject;
import static org.jocl.CL.clReleaseProgram;
import static org.jocl.CL.clSetKernelArg;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_device_id;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.jocl.cl_platform_id;
import org.jocl.cl_program;
import org.jocl.cl_queue_properties;

/**
 * The driver's own host cost of what a memoized gpu call must do at the least, with no Partita code:
 * one blocking write of the input, {@code chain} launches of pre-bound kernel objects (a naive n x n
 * MatMul each, ping-ponging two buffers against constant weights already on the device) and one
 * blocking read, on device 0 of the first platform (the gpu backend's device gpu.0). Host time is the
 * calling thread's CPU time, as in {@link MemoBenchmark}. No memoization can make a call cheaper than
 * this, so {@code unmemoized / floor} bounds {@code ratio_memo} on the device.
 */
final class JoclFloor {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final String SOURCE = """
            __kernel void mm(__global const float* a, __global const float* w, __global float* y, int n) {
                int r = get_global_id(0), c = get_global_id(1);
                float s = 0;
                for (int k = 0; k < n; k++) s += a[r * n + k] * w[k * n + c];
                y[r * n + c] = s;
            }
            """;

    private JoclFloor() {
    }

    /** Median host CPU nanoseconds per call over {@code calls} calls (after as many warm-up calls). */
    static double medianNanos(int n, int chain, int calls) {
        CL.setExceptionsEnabled(true);
        cl_platform_id[] platform = new cl_platform_id[1];
        clGetPlatformIDs(1, platform, null);
        cl_device_id[] device = new cl_device_id[1];
        clGetDeviceIDs(platform[0], CL_DEVICE_TYPE_ALL, 1, device, null);
        cl_context context = clCreateContext(null, 1, device, null, null, null);
        cl_command_queue queue = clCreateCommandQueueWithProperties(context, device[0], new cl_queue_properties(), null);
        cl_program program = clCreateProgramWithSource(context, 1, new String[] {SOURCE}, null, null);
        clBuildProgram(program, 0, null, null, null, null);
        long bytes = (long) n * n * Sizeof.cl_float;
        float[] host = new float[n * n];
        Arrays.fill(host, 0.01f);
        cl_mem[] ping = {clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, null, null),
                clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, null, null)};
        cl_mem[] weights = new cl_mem[chain];
        cl_kernel[] kernels = new cl_kernel[chain];
        for (int i = 0; i < chain; i++) {
            weights[i] = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, null, null);
            clEnqueueWriteBuffer(queue, weights[i], CL_TRUE, 0, bytes, Pointer.to(host), 0, null, null);
            kernels[i] = clCreateKernel(program, "mm", null);
            clSetKernelArg(kernels[i], 0, Sizeof.cl_mem, Pointer.to(ping[i % 2]));
            clSetKernelArg(kernels[i], 1, Sizeof.cl_mem, Pointer.to(weights[i]));
            clSetKernelArg(kernels[i], 2, Sizeof.cl_mem, Pointer.to(ping[(i + 1) % 2]));
            clSetKernelArg(kernels[i], 3, Sizeof.cl_int, Pointer.to(new int[] {n}));
        }
        long[] global = {n, n};
        double[] t = new double[calls];
        try {
            for (int round = 0; round < 2; round++) { // the first round warms up
                for (int c = 0; c < calls; c++) {
                    long c0 = THREADS.getCurrentThreadCpuTime();
                    clEnqueueWriteBuffer(queue, ping[0], CL_TRUE, 0, bytes, Pointer.to(host), 0, null, null);
                    for (int i = 0; i < chain; i++) {
                        clEnqueueNDRangeKernel(queue, kernels[i], 2, null, global, null, 0, null, null);
                    }
                    clEnqueueReadBuffer(queue, ping[chain % 2], CL_TRUE, 0, bytes, Pointer.to(host), 0, null, null);
                    t[c] = THREADS.getCurrentThreadCpuTime() - c0;
                }
            }
        } finally {
            for (int i = 0; i < chain; i++) {
                clReleaseKernel(kernels[i]);
                clReleaseMemObject(weights[i]);
            }
            clReleaseMemObject(ping[0]);
            clReleaseMemObject(ping[1]);
            clReleaseProgram(program);
            clReleaseCommandQueue(queue);
            clReleaseContext(context);
        }
        Arrays.sort(t);
        return t[t.length / 2];
    }
}
