package io.partita.backend.compiler.internal.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.partita.runtime.threads.WorkerTeam;

/**
 * Fused loops on a runtime thread team: the caller works beside the team's workers, each starting
 * on its own share and then taking over the others' rest: every task runs exactly once, forEach returns only after the last one, a
 * failure stops the claiming and is rethrown after every thread is done, and callers from several
 * threads (and from inside a task) never deadlock.
 */
class ParallelTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyTaskRunsExactlyOnceAndBeforeForEachReturns() {
        try (WorkerTeam team = new WorkerTeam(3, "parallel-test")) {
            Parallel p = new Parallel(team);
            p.forEach(0, i -> {
                throw new AssertionError("no task of an empty loop runs");
            });
            for (int n : new int[] {1, 2, 3, 5, 17, 1000}) {
                for (int round = 0; round < 200; round++) {
                    AtomicIntegerArray runs = new AtomicIntegerArray(n);
                    p.forEach(n, runs::incrementAndGet);
                    for (int i = 0; i < n; i++) {
                        assertEquals(1, runs.get(i), "task " + i + " of " + n + " in round " + round);
                    }
                }
            }
        }
    }

    /**
     * Two tasks, one waiting for the other: a thread takes the other's share only after its own,
     * so the waiting task's share holder is blocked and the awaited task must run on the other thread.
     */
    private static Thread[] twoTasks(Parallel p, int waiting) {
        Thread[] ranBy = new Thread[2];
        CountDownLatch awaited = new CountDownLatch(1);
        p.forEach(2, i -> {
            ranBy[i] = Thread.currentThread();
            if (i != waiting) {
                awaited.countDown();
                return;
            }
            try {
                assertTrue(awaited.await(30, TimeUnit.SECONDS), "task " + (1 - i) + " ran meanwhile");
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        return ranBy;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theCallerWorksBesideTheWorker() {
        try (WorkerTeam team = new WorkerTeam(2, "parallel-test")) { // one worker and the caller
            Parallel p = new Parallel(team);
            for (int round = 0; round < 50; round++) {
                // the worker's task waits: only a caller that works itself runs task 0
                assertSame(Thread.currentThread(), twoTasks(p, 1)[0], "round " + round);
                // the caller's task waits: the worker runs task 1
                Thread other = twoTasks(p, 0)[1];
                assertTrue(other != Thread.currentThread() && other.getName().startsWith("parallel-test-"),
                        "round " + round + ": " + other);
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aFailureIsRethrownAfterEveryThreadStopped() {
        try (WorkerTeam team = new WorkerTeam(2, "parallel-test")) {
            Parallel p = new Parallel(team);
            AtomicInteger running = new AtomicInteger();
            AtomicInteger started = new AtomicInteger();
            IllegalArgumentException boom = new IllegalArgumentException("task 3 failed");
            IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> p.forEach(1000, i -> {
                running.incrementAndGet();
                started.incrementAndGet();
                try {
                    if (i == 3) {
                        throw boom;
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(100_000); // 1000 tasks: far longer than the failure takes
                } finally {
                    running.decrementAndGet();
                }
            }));
            assertSame(boom, thrown);
            assertEquals(0, running.get(), "no task still running when forEach returns");
            assertTrue(started.get() < 1000, "claiming stopped after the failure: " + started.get());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void concurrentAndNestedCallersFinish() throws InterruptedException {
        try (WorkerTeam team = new WorkerTeam(2, "parallel-test")) {
            Parallel p = new Parallel(team);
            int callers = 6;
            AtomicInteger total = new AtomicInteger();
            Thread[] ts = new Thread[callers];
            for (int c = 0; c < callers; c++) {
                ts[c] = Thread.ofPlatform().start(() -> {
                    for (int r = 0; r < 300; r++) {
                        p.forEach(4, i -> p.forEach(3, j -> total.incrementAndGet())); // a loop inside a task
                    }
                });
            }
            for (Thread t : ts) {
                t.join();
            }
            assertEquals(callers * 300 * 4 * 3, total.get());
        }
    }
}
