package io.partita.cache;

/**
 * One device: a kind and an index among the devices of that kind. Each device has its own
 * constant tensor cache. Written {@code cpu}, {@code gpu.1} in settings.
 */
public record Device(DeviceKind kind, int index) {

    public static final Device CPU = new Device(DeviceKind.CPU, 0);

    public Device {
        if (kind == null) {
            throw new IllegalArgumentException("device kind must not be null");
        }
        if (index < 0) {
            throw new IllegalArgumentException("device index must be >= 0, got " + index);
        }
    }

    /** The device of an engine, given the engine kind's spelling and its index. */
    public static Device of(String kind, int index) {
        return new Device(DeviceKind.fromSpelling(kind), index);
    }

    @Override
    public String toString() {
        return index == 0 ? kind.spelling() : kind.spelling() + "." + index;
    }
}
