package io.partita.runtime.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;

/**
 * The pool on more threads than cores (the case that used to hang: spinning threads starved the
 * ones with work), with concurrent callers, failures and nested loops. Timeouts are generous:
 * the point is progress, not speed, on a possibly loaded 2-core machine.
 */
class WorkerTeamTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int TASKS = 1000;

    /** Runs one loop in which every task adds its loop number to its slot. */
    private static void addLoop(WorkerTeam pool, AtomicIntegerArray sums, int loop) {
        pool.parallelFor(sums.length(), (from, to) -> {
            for (int i = from; i < to; i++) {
                sums.addAndGet(i, loop);
            }
        });
    }

    /** Every slot must have received every loop number 1..loops exactly once. */
    private static void assertAllLoopsRan(AtomicIntegerArray sums, int loops) {
        int expected = loops * (loops + 1) / 2;
        for (int i = 0; i < sums.length(); i++) {
            assertEquals(expected, sums.get(i), "slot " + i);
        }
    }

    @Test
    void manyMoreThreadsThanCoresCompleteLoops() {
        try (WorkerTeam pool = new WorkerTeam(64, "oversubscribed", 2)) {
            assertFalse(pool.spins(), "64 threads on 2 processors must not spin");
            AtomicIntegerArray sums = new AtomicIntegerArray(TASKS);
            assertTimeoutPreemptively(BOUND, () -> {
                for (int loop = 1; loop <= 200; loop++) {
                    addLoop(pool, sums, loop);
                }
            });
            assertAllLoopsRan(sums, 200);
        }
    }

    @Test
    void aThousandThreadsCompleteLoops() {
        try (WorkerTeam pool = new WorkerTeam(1024, "max", Runtime.getRuntime().availableProcessors())) {
            AtomicIntegerArray sums = new AtomicIntegerArray(4 * 1024);
            assertTimeoutPreemptively(BOUND, () -> {
                for (int loop = 1; loop <= 20; loop++) {
                    addLoop(pool, sums, loop);
                }
            });
            assertAllLoopsRan(sums, 20);
        }
    }

    /** Even a pool that believes it may spin cannot starve its workers: every spin is bounded. */
    @Test
    void spinningPoolWithMoreThreadsThanCoresCompletesLoops() {
        int threads = 8 * Runtime.getRuntime().availableProcessors();
        try (WorkerTeam pool = new WorkerTeam(threads, "spinning", threads)) {
            assertTrue(pool.spins());
            AtomicIntegerArray sums = new AtomicIntegerArray(TASKS);
            assertTimeoutPreemptively(BOUND, () -> {
                for (int loop = 1; loop <= 200; loop++) {
                    addLoop(pool, sums, loop);
                }
            });
            assertAllLoopsRan(sums, 200);
        }
    }

    @Test
    void concurrentCallersEachGetTheirOwnResults() throws Exception {
        for (int threads : new int[] {2, 64}) {
            try (WorkerTeam pool = new WorkerTeam(threads, "shared", 2)) {
                ExecutorService callers = Executors.newFixedThreadPool(4);
                try {
                    List<Future<AtomicIntegerArray>> results = new ArrayList<>();
                    for (int c = 0; c < 4; c++) {
                        results.add(callers.submit(() -> {
                            AtomicIntegerArray sums = new AtomicIntegerArray(TASKS);
                            for (int loop = 1; loop <= 50; loop++) {
                                addLoop(pool, sums, loop);
                            }
                            return sums;
                        }));
                    }
                    assertTimeoutPreemptively(BOUND, () -> {
                        for (Future<AtomicIntegerArray> f : results) {
                            assertAllLoopsRan(f.get(), 50);
                        }
                    }, threads + " threads");
                } finally {
                    callers.shutdownNow();
                }
            }
        }
    }

    @Test
    void idleWorkersStopSpinningAndPark() throws Exception {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        try (WorkerTeam pool = new WorkerTeam(threads, "idle-test", threads)) {
            AtomicIntegerArray sums = new AtomicIntegerArray(TASKS);
            for (int loop = 1; loop <= 20; loop++) {
                addLoop(pool, sums, loop);
            }
            assertAllLoopsRan(sums, 20);
            // The spin is bounded (200 us): well within the wait, every worker must be parked.
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            List<String> running;
            do {
                Thread.sleep(20);
                running = new ArrayList<>();
                for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                    Thread t = e.getKey();
                    if (t.getName().startsWith("idle-test-") && t.getState() != Thread.State.WAITING) {
                        running.add(t.getName() + " " + t.getState());
                    }
                }
            } while (!running.isEmpty() && System.nanoTime() < deadline);
            assertEquals(List.of(), running, "workers not parked 10 s after the last loop");
        }
    }

    @Test
    void aFailureReachesTheCallerAndThePoolGoesOn() {
        try (WorkerTeam pool = new WorkerTeam(16, "failing", 2)) {
            IllegalStateException boom = new IllegalStateException("boom");
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> pool.parallelFor(16, (from, to) -> {
                if (from == 8) {
                    throw boom;
                }
            }));
            assertSame(boom, thrown);
            AtomicIntegerArray sums = new AtomicIntegerArray(TASKS);
            assertTimeoutPreemptively(BOUND, () -> addLoop(pool, sums, 1));
            assertAllLoopsRan(sums, 1);
        }
    }

    @Test
    void aNestedLoopRunsOnItsCaller() {
        try (WorkerTeam pool = new WorkerTeam(8, "nested", 2)) {
            AtomicIntegerArray sums = new AtomicIntegerArray(64);
            assertTimeoutPreemptively(BOUND, () -> pool.parallelFor(8, (from, to) -> {
                for (int outer = from; outer < to; outer++) {
                    int base = outer * 8;
                    Thread self = Thread.currentThread();
                    pool.parallelFor(8, (f, t) -> {
                        assertSame(self, Thread.currentThread(), "inner share on another thread");
                        for (int i = f; i < t; i++) {
                            sums.addAndGet(base + i, 1);
                        }
                    });
                }
            }));
            assertAllLoopsRan(sums, 1);
        }
    }

    /**
     * The worker stalls in its first chunk (as when the machine deschedules it): the caller runs
     * its own share and then the rest of the worker's, and every task runs exactly once.
     */
    @Test
    void aStalledShareIsTakenOverAndEveryTaskRunsOnce() {
        try (WorkerTeam pool = new WorkerTeam(2, "takeover", 2)) {
            int tasks = 64;
            AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
            java.util.concurrent.atomic.AtomicInteger byCaller = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicBoolean stalled = new java.util.concurrent.atomic.AtomicBoolean();
            // (the timeout runs the loop on a thread of its own: that one is the caller)
            assertTimeoutPreemptively(BOUND, () -> pool.parallelFor(tasks, new io.partita.spi.CpuTeam.RangeBody() {
                final Thread caller = Thread.currentThread();

                @Override
                public void run(int from, int to) {
                    boolean mine = Thread.currentThread() == caller;
                    if (!mine && stalled.compareAndSet(false, true)) {
                        try {
                            Thread.sleep(300);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    for (int i = from; i < to; i++) {
                        runs.incrementAndGet(i);
                        if (mine) {
                            byCaller.incrementAndGet();
                        }
                    }
                }
            }));
            for (int i = 0; i < tasks; i++) {
                assertEquals(1, runs.get(i), "task " + i);
            }
            // the stalled worker keeps at most its first chunk (tasks / 16)
            assertTrue(byCaller.get() >= tasks - tasks / 16, "caller ran " + byCaller.get() + " of " + tasks);
        }
    }

    /** With a minimum chunk of a whole share, each thread's share is one call unless taken over. */
    @Test
    void aMinimumChunkOfAShareCallsTheBodyOncePerShare() {
        try (WorkerTeam pool = new WorkerTeam(2, "shares", 2)) {
            java.util.List<int[]> calls = java.util.Collections.synchronizedList(new ArrayList<>());
            assertTimeoutPreemptively(BOUND, () -> pool.parallelFor(100, 50, (from, to) -> calls.add(new int[] {from, to})));
            int covered = 0;
            for (int[] c : calls) {
                covered += c[1] - c[0];
            }
            assertEquals(100, covered);
            assertTrue(calls.size() <= 2 + 6, "calls " + calls.size()); // two shares, plus takeovers of a late one
        }
    }
}
