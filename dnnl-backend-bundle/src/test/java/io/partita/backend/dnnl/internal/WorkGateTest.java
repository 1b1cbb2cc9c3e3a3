package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

class WorkGateTest {
    private static final long WINDOW_NS = 100_000_000L;

    @Test
    void anUnmarkedGateIsIdleAtOnce() {
        WorkGate gate = new WorkGate(WINDOW_NS, 5);
        long t0 = System.nanoTime();
        assertTrue(gate.awaitIdle(() -> false));
        assertTrue(System.nanoTime() - t0 < WINDOW_NS / 2, "waited without any mark");
    }

    @Test
    void aMarkHoldsTheBackgroundWorkForTheWindow() {
        WorkGate gate = new WorkGate(WINDOW_NS, 5);
        gate.mark();
        long t0 = System.nanoTime();
        assertTrue(gate.awaitIdle(() -> false));
        assertTrue(System.nanoTime() - t0 >= WINDOW_NS * 8 / 10, "returned before the busy window ended");
    }

    /** Executions back to back keep the background work waiting until they stop, however long. */
    @Test
    void marksFromAnotherThreadHoldItUntilTheyStop() throws Exception {
        WorkGate gate = new WorkGate(WINDOW_NS, 5);
        AtomicBoolean working = new AtomicBoolean(true);
        gate.mark();
        Thread executions = Thread.ofPlatform().start(() -> {
            long end = System.nanoTime() + 4 * WINDOW_NS;
            while (System.nanoTime() < end) {
                gate.mark();
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
            working.set(false);
        });
        assertTrue(gate.awaitIdle(() -> false));
        assertFalse(working.get(), "the background work went ahead while executions still ran");
        executions.join();
    }

    @Test
    void stoppingEndsTheWaitEvenWhileBusy() {
        WorkGate gate = new WorkGate(10 * WINDOW_NS, 5);
        gate.mark();
        long t0 = System.nanoTime();
        assertFalse(gate.awaitIdle(() -> System.nanoTime() - t0 > WINDOW_NS / 10));
        assertTrue(System.nanoTime() - t0 < 5 * WINDOW_NS, "did not stop when told");
    }

    @Test
    void aClosedGateIgnoresMarks() {
        WorkGate gate = new WorkGate(10 * WINDOW_NS, 5);
        gate.close();
        gate.mark();
        long t0 = System.nanoTime();
        assertTrue(gate.awaitIdle(() -> false));
        assertTrue(System.nanoTime() - t0 < WINDOW_NS, "a mark after close still held the gate");
    }

    @Test
    void refusesANonPositiveWindow() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new WorkGate(0, 5));
        assertTrue(e.getMessage().contains("0 ns"), e.getMessage());
    }
}
