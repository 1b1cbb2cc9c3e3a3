package io.partita.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;

/** The identity of a constant's memory: same memory equal, another arena or array not, liveness follows the arena. */
class SourceMemoryTest {

    @Test
    void sameMemoryIsEqualOtherMemoryIsNot() {
        try (Arena a = Arena.ofShared(); Arena b = Arena.ofShared()) {
            MemorySegment x = a.allocate(64, 64);
            MemorySegment y = b.allocate(64, 64);
            assertEquals(SourceMemory.of(x), SourceMemory.of(x));
            assertEquals(SourceMemory.of(x).hashCode(), SourceMemory.of(x).hashCode());
            assertNotEquals(SourceMemory.of(x), SourceMemory.of(y));
            assertNotEquals(SourceMemory.of(x), SourceMemory.of(x.asSlice(0, 32)), "a different size");
        }
        MemorySegment h1 = MemorySegment.ofArray(new float[4]);
        MemorySegment h2 = MemorySegment.ofArray(new float[4]);
        assertEquals(SourceMemory.of(h1), SourceMemory.of(h1));
        assertNotEquals(SourceMemory.of(h1), SourceMemory.of(h2), "equal-looking arrays are different memory");
    }

    @Test
    void aClosedArenaIsNoLongerAlive() {
        Arena a = Arena.ofShared();
        SourceMemory m = SourceMemory.of(a.allocate(16));
        assertTrue(m.isAlive());
        a.close();
        assertFalse(m.isAlive());
    }
}
