package io.partita.spi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Tensor;

/** Kernels may hand tensors to their worker pools only when no tensor is confined to the caller's thread. */
class KernelTest {
    private static final LogicalTensor LT = LogicalTensor.of(1, DataType.F32, 4);

    @Test
    void confinedMemoryKeepsAKernelOnTheCallersThread() {
        try (Arena shared = Arena.ofShared(); Arena confined = Arena.ofConfined()) {
            Tensor s = Tensor.allocate(LT, Engine.cpu(), shared);
            Tensor c = Tensor.allocate(LT, Engine.cpu(), confined);
            Tensor heap = Tensor.of(LT, Engine.cpu(), MemorySegment.ofArray(new float[4]));
            assertTrue(Kernel.sharedAcrossThreads(List.of(s, heap), List.of(s)));
            assertFalse(Kernel.sharedAcrossThreads(List.of(s), List.of(c)), "a confined output");
            assertFalse(Kernel.sharedAcrossThreads(List.of(c), List.of(s)), "a confined input");
        }
    }
}
