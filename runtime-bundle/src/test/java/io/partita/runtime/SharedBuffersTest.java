package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Tensor;

/** Blocks of the intermediate arena: aligned, at distinct offsets within a page, reused best fit. */
class SharedBuffersTest {

    @Test
    void liveBlocksStartAtDistinctAlignedPageOffsets() {
        try (Arena arena = Arena.ofShared()) {
            SharedBuffers buffers = new SharedBuffers(arena);
            Engine cpu = Engine.cpu();
            List<Tensor> live = new ArrayList<>();
            Set<Long> offsets = new HashSet<>();
            for (int i = 0; i < 6; i++) {
                // same-sized tensors, as a residual and a convolution's output are
                Tensor t = buffers.take(LogicalTensor.of(i, DataType.F32, 1, 64, 56, 56), cpu);
                live.add(t);
                long address = t.data().address();
                assertEquals(0, address % Tensor.ALIGNMENT, "block " + i + " at " + Long.toHexString(address));
                long inPage = address % 4096;
                assertTrue(offsets.add(inPage), "block " + i + " starts at page offset " + inPage
                        + " like an earlier one: " + offsets);
                // no two live blocks a cache line or less apart within the page (4K aliasing)
                for (long other : offsets) {
                    long d = Math.floorMod(inPage - other, 4096);
                    assertTrue(other == inPage || (d > 64 && d < 4096 - 64),
                            "page offsets " + inPage + " and " + other + " within a line");
                }
            }
            assertEquals(6, buffers.count());
            // given back, the same tensor shape takes a free block again instead of growing the arena
            Tensor third = live.get(2);
            buffers.release(third);
            Tensor again = buffers.take(LogicalTensor.of(99, DataType.F32, 1, 64, 56, 56), cpu);
            assertEquals(third.data().address(), again.data().address());
            assertEquals(6, buffers.count());
            assertNotEquals(live.get(1).data().address(), again.data().address());
            // while it is busy, the next tensor gets a new block
            Tensor other = buffers.take(LogicalTensor.of(100, DataType.F32, 1, 64, 56, 56), cpu);
            assertEquals(7, buffers.count(), "a busy block was handed out again");
            for (Tensor t : live) {
                assertNotEquals(t.data().address(), other.data().address());
            }
        }
    }
}
