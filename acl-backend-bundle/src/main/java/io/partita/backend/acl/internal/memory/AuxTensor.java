package io.partita.backend.acl.internal.memory;

/**
 * An auxiliary tensor an operator needs while it runs (im2col buffer, packed weights,
 * accumulators), declared before the run with the steps of the run it lives through.
 *
 * @param name unique within one operator, e.g. {@code im2col}
 * @param bytes its size
 * @param firstStep the step that first writes it
 * @param lastStep the step that last reads it (inclusive)
 */
public record AuxTensor(String name, long bytes, int firstStep, int lastStep) {

    public AuxTensor {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("an auxiliary tensor needs a name");
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("auxiliary tensor " + name + ": size must be >= 0 bytes, got " + bytes);
        }
        if (firstStep < 0 || lastStep < firstStep) {
            throw new IllegalArgumentException("auxiliary tensor " + name + ": lifetime must be 0 <= first <= last, got ["
                    + firstStep + ", " + lastStep + "]");
        }
    }

    /** Whether both tensors are alive at some step (then they cannot share a blob). */
    public boolean overlaps(AuxTensor other) {
        return firstStep <= other.lastStep && other.firstStep <= lastStep;
    }
}
