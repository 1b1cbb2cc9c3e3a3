package io.partita.spi;

import java.lang.foreign.MemorySegment;
import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * A compiled partition's executable code. Must be safe to execute from many threads at once.
 * Inputs and outputs arrive in the order of the partition's ports, already validated (ids,
 * dims consistent with compilation, buffer sizes).
 */
@ConsumerType
public interface Kernel {

    void execute(Stream stream, List<Tensor> inputs, List<Tensor> outputs);

    /**
     * Whether every tensor's memory may be touched by threads other than the caller: false when
     * one lives in a confined arena (only its owner may access it), and then a kernel runs on the
     * calling thread alone rather than on its worker pool.
     */
    static boolean sharedAcrossThreads(List<Tensor> inputs, List<Tensor> outputs) {
        for (List<Tensor> ts : List.of(inputs, outputs)) {
            for (Tensor t : ts) {
                MemorySegment s = t.data();
                if (s.isNative() && !(s.scope().isAlive() && s.isAccessibleBy(ThreadProbe.OTHER))) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * This kernel's call over these very tensors, prepared for being run again and again (a compiled
     * graph's memoized plan runs it for partitions whose tensors all belong to the plan). A backend
     * binds here what it would otherwise work out on every {@link #execute} (which threads may touch
     * the memory, argument blocks); the runtime has already validated the tensors and keeps them (the
     * same memory, shapes and layouts) while the call is in use; their contents change from run to
     * run. The default prepares nothing.
     */
    default Call prepare(List<Tensor> inputs, List<Tensor> outputs) {
        List<Tensor> in = List.copyOf(inputs);
        List<Tensor> out = List.copyOf(outputs);
        return stream -> execute(stream, in, out);
    }

    /** A prepared call of a kernel over fixed tensors; run by one thread at a time. */
    @FunctionalInterface
    @ConsumerType
    interface Call {
        void run(Stream stream);
    }

    /**
     * The compiled code as blobs for {@link Backend#compileFromBlobs} (generated class files, program
     * binaries), or empty when there is nothing worth persisting. The runtime seals and stores them.
     */
    default List<byte[]> cacheBlobs() {
        return List.of();
    }

    /** Frees resources held by the kernel (cache entries, device buffers). */
    default void close() {
    }
}
