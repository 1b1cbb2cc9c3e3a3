package io.partita.gpu.internal.cl;

import static org.jocl.CL.CL_DRIVER_VERSION;
import static org.jocl.CL.CL_DEVICE_EXTENSIONS;
import static org.jocl.CL.CL_DEVICE_GLOBAL_MEM_SIZE;
import static org.jocl.CL.CL_DEVICE_LOCAL_MEM_SIZE;
import static org.jocl.CL.CL_DEVICE_MAX_COMPUTE_UNITS;
import static org.jocl.CL.CL_DEVICE_MAX_MEM_ALLOC_SIZE;
import static org.jocl.CL.CL_DEVICE_MAX_WORK_GROUP_SIZE;
import static org.jocl.CL.CL_DEVICE_NAME;
import static org.jocl.CL.CL_DEVICE_TYPE;
import static org.jocl.CL.CL_DEVICE_TYPE_ACCELERATOR;
import static org.jocl.CL.CL_DEVICE_TYPE_ALL;
import static org.jocl.CL.CL_DEVICE_TYPE_CPU;
import static org.jocl.CL.CL_DEVICE_TYPE_GPU;
import static org.jocl.CL.CL_DEVICE_VENDOR;
import static org.jocl.CL.CL_DEVICE_VERSION;
import static org.jocl.CL.CL_PLATFORM_NAME;
import static org.jocl.CL.clGetDeviceIDs;
import static org.jocl.CL.clGetDeviceInfo;
import static org.jocl.CL.clGetPlatformIDs;
import static org.jocl.CL.clGetPlatformInfo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jocl.CL;
import org.jocl.CLException;
import org.jocl.Sizeof;
import org.jocl.cl_device_id;
import org.jocl.cl_platform_id;

/**
 * Finds the OpenCL devices of every platform, in platform then device order. Devices of any type
 * count: CI has no GPU and runs the engine on PoCL's CPU device.
 */
public final class Discovery {
    private Discovery() {
    }

    /** The devices found, or why there are none (no OpenCL library, no platform). */
    public record Result(List<GpuDevice> devices, String problem) {
        public Result {
            devices = List.copyOf(devices);
        }
    }

    public static Result discover() {
        try {
            CL.setExceptionsEnabled(true);
            int[] n = new int[1];
            clGetPlatformIDs(0, null, n);
            if (n[0] == 0) {
                return new Result(List.of(), "no OpenCL platform is installed (e.g. apt-get install pocl-opencl-icd)");
            }
            cl_platform_id[] platforms = new cl_platform_id[n[0]];
            clGetPlatformIDs(n[0], platforms, null);
            List<GpuDevice> found = new ArrayList<>();
            for (cl_platform_id p : platforms) {
                String platformName = platformString(p, CL_PLATFORM_NAME);
                int[] nd = new int[1];
                try {
                    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, null, nd);
                } catch (CLException e) {
                    continue; // CL_DEVICE_NOT_FOUND: a platform without devices
                }
                cl_device_id[] ds = new cl_device_id[nd[0]];
                clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd[0], ds, null);
                for (cl_device_id d : ds) {
                    found.add(describe(found.size(), p, platformName, d));
                }
            }
            return new Result(found, found.isEmpty() ? "the OpenCL platforms have no devices" : "");
        } catch (CLException e) {
            return new Result(List.of(), "OpenCL is not usable: " + e.getMessage());
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            return new Result(List.of(), "the OpenCL library could not be loaded (install ocl-icd-libopencl1 and a "
                    + "driver such as pocl-opencl-icd): " + e.getMessage());
        }
    }

    private static GpuDevice describe(int index, cl_platform_id p, String platformName, cl_device_id d) {
        String ext = deviceString(d, CL_DEVICE_EXTENSIONS).trim();
        List<String> extensions = ext.isEmpty() ? List.of()
                : Arrays.stream(ext.split("\\s+")).filter(s -> !s.isBlank()).sorted().toList();
        long type = deviceLong(d, CL_DEVICE_TYPE);
        String typeName = (type & CL_DEVICE_TYPE_GPU) != 0 ? "gpu"
                : (type & CL_DEVICE_TYPE_CPU) != 0 ? "cpu" : (type & CL_DEVICE_TYPE_ACCELERATOR) != 0 ? "accelerator" : "other";
        return new GpuDevice(index, p, d, deviceString(d, CL_DEVICE_NAME), deviceString(d, CL_DEVICE_VENDOR), platformName,
                deviceString(d, CL_DRIVER_VERSION), deviceString(d, CL_DEVICE_VERSION), typeName,
                deviceLong(d, CL_DEVICE_GLOBAL_MEM_SIZE), deviceLong(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE),
                deviceLong(d, CL_DEVICE_LOCAL_MEM_SIZE), deviceInt(d, CL_DEVICE_MAX_COMPUTE_UNITS),
                deviceSize(d, CL_DEVICE_MAX_WORK_GROUP_SIZE), extensions);
    }

    private static String platformString(cl_platform_id p, int param) {
        long[] size = new long[1];
        clGetPlatformInfo(p, param, 0, null, size);
        QueryOut b = QueryOut.of(size[0]);
        clGetPlatformInfo(p, param, size[0], b.pointer(), null);
        return b.asString();
    }

    static String deviceString(cl_device_id d, int param) {
        long[] size = new long[1];
        clGetDeviceInfo(d, param, 0, null, size);
        QueryOut b = QueryOut.of(size[0]);
        clGetDeviceInfo(d, param, size[0], b.pointer(), null);
        return b.asString();
    }

    private static long deviceLong(cl_device_id d, int param) {
        QueryOut v = QueryOut.of(Sizeof.cl_ulong);
        clGetDeviceInfo(d, param, Sizeof.cl_ulong, v.pointer(), null);
        return v.asLong();
    }

    private static int deviceInt(cl_device_id d, int param) {
        QueryOut v = QueryOut.of(Sizeof.cl_uint);
        clGetDeviceInfo(d, param, Sizeof.cl_uint, v.pointer(), null);
        return v.asInt();
    }

    private static long deviceSize(cl_device_id d, int param) {
        QueryOut v = QueryOut.of(Long.BYTES);
        clGetDeviceInfo(d, param, Sizeof.size_t, v.pointer(), null);
        return Sizeof.size_t == Integer.BYTES ? v.asInt() : v.asLong();
    }
}
