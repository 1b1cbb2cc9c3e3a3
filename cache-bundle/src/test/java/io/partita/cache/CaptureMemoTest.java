package io.partita.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** The capture-set memo: matching, invalidation, weak capture, LRU, one user per entry, release once. */
class CaptureMemoTest {
    private final List<String> released = new ArrayList<>();
    private final AtomicInteger recorded = new AtomicInteger();
    private final CaptureMemo<String> memo = new CaptureMemo<>(2, v -> {
        synchronized (released) {
            released.add(v);
        }
    });

    private CaptureMemo.Entry<String> acquire(CaptureMemo.Capture c) {
        return memo.acquire(c, () -> "rec" + recorded.incrementAndGet());
    }

    private static CaptureMemo.Capture capture(MemorySegment m, long scalar, long... shape) {
        return new CaptureMemo.Capture().memory(m).value(scalar).values(shape);
    }

    @Test
    void sameCaptureReplaysAndAnyChangeRecords() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(64);
            try (var e = acquire(capture(m, 1, 2, 8))) {
                assertTrue(e.recorded());
            }
            try (var e = acquire(capture(m, 1, 2, 8))) {
                assertFalse(e.recorded());
                assertEquals("rec1", e.value());
            }
            try (var e = acquire(capture(m, 2, 2, 8))) { // scalar change
                assertTrue(e.recorded());
            }
            try (var e = acquire(capture(m, 1, 4, 4))) { // shape change: evicts the least recently used (rec1)
                assertTrue(e.recorded());
            }
            try (var e = acquire(capture(m.asSlice(0, 32), 1, 4, 4))) { // another memory: evicts rec2
                assertTrue(e.recorded());
            }
            assertEquals(List.of("rec1", "rec2"), released);
            assertEquals(2, memo.size());
            assertEquals(1, memo.hits());
            assertEquals(4, memo.misses());
        }
    }

    @Test
    void anEntryInUseIsNotHandedOutAgainAndIsReleasedWhenReturned() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(64);
            CaptureMemo.Entry<String> first = acquire(capture(m, 0));
            CaptureMemo.Entry<String> second = acquire(capture(m, 0)); // same capture, first still in use
            assertNotSame(first.value(), second.value());
            assertTrue(second.recorded());
            acquire(capture(m, 7)).close(); // evicts `first` (LRU) while in use: not released yet
            assertTrue(released.isEmpty());
            first.close();
            assertEquals(List.of("rec1"), released);
            first.close(); // never twice
            assertEquals(List.of("rec1"), released);
            second.close();
            try (var e = acquire(capture(m, 0))) {
                assertEquals("rec2", e.value());
            }
        }
    }

    @Test
    void collectedMemoryDropsItsEntry() throws InterruptedException {
        recordAuto();
        assertEquals(1, memo.size());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (memo.size() > 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, memo.size());
        assertEquals(List.of("rec1"), released);
    }

    @Test
    void aClearedCaptureIsReusedAndHoldsNoMemory() throws InterruptedException {
        CaptureMemo.Capture reused = new CaptureMemo.Capture();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(64);
            long[] longShape = new long[600]; // past the capture's first arrays: they grow, then are kept
            try (var e = acquire(reused.memory(m).value(1).values(longShape))) {
                assertTrue(e.recorded());
            }
            try (var e = acquire(reused.clear().memory(m).value(1).values(longShape))) {
                assertFalse(e.recorded());
                assertEquals("rec1", e.value());
            }
            try (var e = acquire(reused.clear().memory(m).value(2).values(longShape))) { // no stale values match
                assertTrue(e.recorded());
            }
        }
        // a cleared capture kept for reuse must not keep captured memory (and its entry) alive
        CaptureMemo<String> own = new CaptureMemo<>(2, v -> { });
        recordAutoWith(own, reused);
        reused.clear();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (own.size() > 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, own.size());
    }

    private static void recordAutoWith(CaptureMemo<String> memo, CaptureMemo.Capture c) {
        MemorySegment m = Arena.ofAuto().allocate(64);
        memo.acquire(c.memory(m).value(0), () -> "auto").close();
    }

    private void recordAuto() {
        MemorySegment m = Arena.ofAuto().allocate(64);
        acquire(capture(m, 0)).close();
    }

    @Test
    void aClosedArenaNeverMatches() {
        MemorySegment m;
        try (Arena a = Arena.ofConfined()) {
            m = a.allocate(64);
            acquire(capture(m, 0)).close();
        }
        // the next lookup, of anything, drops the entry of the closed arena
        try (Arena b = Arena.ofConfined(); var e = acquire(capture(b.allocate(8), 0))) {
            assertTrue(e.recorded());
            assertEquals(List.of("rec1"), released);
            assertEquals(1, memo.size());
        }
        // a probe naming the dead scope (as a stale tensor would) records anew
        try (var e = acquire(capture(m, 0))) {
            assertTrue(e.recorded());
        }
    }

    @Test
    void closeReleasesEverythingOnce() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(64);
            acquire(capture(m, 0)).close();
            CaptureMemo.Entry<String> inUse = acquire(capture(m, 1));
            memo.close();
            assertEquals(List.of("rec1"), released);
            inUse.close();
            assertEquals(List.of("rec1", "rec2"), released);
            try (var e = acquire(capture(m, 0))) { // a closed memo keeps nothing
                assertTrue(e.recorded());
            }
            assertEquals(3, released.size());
            assertEquals(0, memo.size());
        }
    }

    @Test
    void capacityPropertyOutsideItsRangeKeepsTheDefault() {
        assertEquals(4, CaptureMemo.capacityProperty(null));
        assertEquals(8, CaptureMemo.capacityProperty(" 8 "));
        assertEquals(64, CaptureMemo.capacityProperty("64"));
        assertEquals(4, CaptureMemo.capacityProperty("0"), "below the range");
        assertEquals(4, CaptureMemo.capacityProperty("65"), "above the range");
        assertEquals(4, CaptureMemo.capacityProperty("lots"), "not an integer");
    }
}
