package io.partita.backend.acl.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class BlobLifetimeManagerTest {

    @Test
    void tensorsWithDisjointLifetimesShareTheLargestBlob() {
        BlobPlan p = BlobLifetimeManager.plan(List.of(new AuxTensor("a", 1000, 0, 1), new AuxTensor("b", 3000, 2, 3),
                new AuxTensor("c", 10, 4, 4)));
        assertEquals(1, p.blobCount());
        assertEquals(3000, p.blobSizes().get(0));
        assertEquals(0, p.offsetOf("a"));
        assertEquals(1000, p.bytesOf("a"));
        assertEquals(3008, p.poolBytes()); // aligned to 64
    }

    @Test
    void overlappingTensorsGetTheirOwnBlobsAtAlignedOffsets() {
        BlobPlan p = BlobLifetimeManager.plan(List.of(new AuxTensor("im2col", 100, 1, 2), new AuxTensor("w", 70, 0, 2),
                new AuxTensor("out", 30, 2, 3)));
        assertEquals(3, p.blobCount());
        assertNotEquals(p.blob("im2col"), p.blob("w"));
        assertEquals(0, p.offsetOf("im2col"));
        assertEquals(128, p.offsetOf("w"));
        assertEquals(256, p.offsetOf("out"));
        assertEquals(320, p.poolBytes());
        for (long off : p.blobOffsets()) {
            assertEquals(0, off % BlobLifetimeManager.ALIGNMENT);
        }
    }

    @Test
    void aTensorJoinsTheFirstBlobWhoseTensorsItOverlapsNone() {
        // "mid" lives after "big": it shares big's blob; "x" overlaps big, opens a second blob, and
        // "y" (alive with mid but not with x) fills in behind x instead of opening a third
        BlobPlan p = BlobLifetimeManager.plan(List.of(new AuxTensor("big", 500, 0, 2), new AuxTensor("mid", 200, 3, 5),
                new AuxTensor("x", 100, 1, 1), new AuxTensor("y", 50, 4, 4)));
        assertEquals(2, p.blobCount());
        assertEquals(p.blob("big"), p.blob("mid"));
        assertEquals(p.blob("x"), p.blob("y"));
        assertEquals(List.of(500L, 100L), p.blobSizes());
    }

    @Test
    void noTensorsNeedAnEmptyPool() {
        BlobPlan p = BlobLifetimeManager.plan(List.of());
        assertEquals(0, p.poolBytes());
        assertEquals(0, p.blobCount());
    }

    @Test
    void badDeclarationsAreRefusedNamingTheTensor() {
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> BlobLifetimeManager.plan(
                List.of(new AuxTensor("t", 1, 0, 0), new AuxTensor("t", 2, 1, 1))));
        assertTrue(twice.getMessage().contains("t is declared twice"), twice.getMessage());
        IllegalArgumentException life = assertThrows(IllegalArgumentException.class, () -> new AuxTensor("acc", 4, 3, 1));
        assertTrue(life.getMessage().contains("acc"), life.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new AuxTensor("neg", -1, 0, 0));
        BlobPlan p = BlobLifetimeManager.plan(List.of(new AuxTensor("t", 1, 0, 0)));
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> p.offsetOf("u"));
        assertTrue(missing.getMessage().contains("no auxiliary tensor named u"), missing.getMessage());
    }
}
