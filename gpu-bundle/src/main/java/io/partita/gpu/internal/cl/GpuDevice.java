package io.partita.gpu.internal.cl;

import java.util.List;
import java.util.Locale;

import org.jocl.cl_device_id;
import org.jocl.cl_platform_id;

/**
 * An OpenCL device as discovered: what {@code partita backends} lists and what the engine index
 * of {@code gpu.N} selects.
 *
 * @param index position among the selected devices (the engine index)
 */
public record GpuDevice(int index, cl_platform_id platform, cl_device_id id, String name, String vendor,
        String platformName, String driverVersion, String openclVersion, String type, long globalMemBytes,
        long maxAllocBytes, long localMemBytes, int computeUnits, long maxWorkGroupSize, List<String> extensions) {

    public GpuDevice {
        extensions = List.copyOf(extensions);
    }

    public boolean hasExtension(String ext) {
        return extensions.contains(ext);
    }

    public GpuDevice withIndex(int newIndex) {
        return new GpuDevice(newIndex, platform, id, name, vendor, platformName, driverVersion, openclVersion, type,
                globalMemBytes, maxAllocBytes, localMemBytes, computeUnits, maxWorkGroupSize, extensions);
    }

    /** One line: engine, name, driver, memory, compute units, extensions. */
    public String describe() {
        return String.format(Locale.ROOT, "gpu.%d: %s (%s, %s; %s; driver %s) memory %d MiB, max alloc %d MiB, local %d KiB,"
                + " %d compute units; extensions: %s", index, name, platformName, type, openclVersion, driverVersion,
                globalMemBytes >> 20, maxAllocBytes >> 20, localMemBytes >> 10, computeUnits, String.join(" ", extensions));
    }
}
