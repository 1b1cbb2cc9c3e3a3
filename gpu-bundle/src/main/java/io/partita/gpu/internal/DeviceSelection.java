package io.partita.gpu.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.partita.gpu.internal.cl.GpuDevice;

/**
 * Which discovered devices become engines {@code gpu.0}, {@code gpu.1}, ...: all of them (an empty
 * selection), or those named in a comma-separated list, each entry the device's position in
 * discovery order or a case-insensitive part of its name, in the order listed.
 */
public final class DeviceSelection {
    private DeviceSelection() {
    }

    /**
     * @throws IllegalArgumentException naming the entry that matches no device
     */
    public static List<GpuDevice> select(List<GpuDevice> found, String selection) {
        if (selection == null || selection.isBlank()) {
            return found;
        }
        List<GpuDevice> picked = new ArrayList<>();
        for (String raw : selection.split(",")) {
            String e = raw.trim();
            if (e.isEmpty()) {
                continue;
            }
            GpuDevice match = null;
            if (e.chars().allMatch(Character::isDigit)) {
                int i = Integer.parseInt(e);
                if (i < found.size()) {
                    match = found.get(i);
                }
            } else {
                String needle = e.toLowerCase(Locale.ROOT);
                match = found.stream().filter(d -> d.name().toLowerCase(Locale.ROOT).contains(needle)
                        && !picked.contains(d)).findFirst().orElse(null);
            }
            if (match == null) {
                throw new IllegalArgumentException("device selection '" + selection + "': entry '" + e
                        + "' matches no OpenCL device; found " + found.stream().map(d -> d.index() + " " + d.name()).toList());
            }
            if (!picked.contains(match)) {
                picked.add(match);
            }
        }
        List<GpuDevice> renumbered = new ArrayList<>();
        for (GpuDevice d : picked) {
            renumbered.add(d.withIndex(renumbered.size()));
        }
        return renumbered;
    }
}
