package io.partita.gpu.internal.cl;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts every copy between host and device memory of one device. Copies are explicit in this
 * engine (no mapped or shared buffers), so these counters are the whole traffic.
 */
public final class Transfers {
    private final LongAdder toDevice = new LongAdder();
    private final LongAdder toDeviceBytes = new LongAdder();
    private final LongAdder toHost = new LongAdder();
    private final LongAdder toHostBytes = new LongAdder();

    /** The counters at one moment. */
    public record Snapshot(long toDevice, long toDeviceBytes, long toHost, long toHostBytes) {
        public Snapshot since(Snapshot earlier) {
            return new Snapshot(toDevice - earlier.toDevice, toDeviceBytes - earlier.toDeviceBytes,
                    toHost - earlier.toHost, toHostBytes - earlier.toHostBytes);
        }

        @Override
        public String toString() {
            return toDevice + " host->device copies (" + toDeviceBytes + " bytes), " + toHost + " device->host copies ("
                    + toHostBytes + " bytes)";
        }
    }

    void countToDevice(long bytes) {
        toDevice.increment();
        toDeviceBytes.add(bytes);
    }

    void countToHost(long bytes) {
        toHost.increment();
        toHostBytes.add(bytes);
    }

    public Snapshot snapshot() {
        return new Snapshot(toDevice.sum(), toDeviceBytes.sum(), toHost.sum(), toHostBytes.sum());
    }
}
