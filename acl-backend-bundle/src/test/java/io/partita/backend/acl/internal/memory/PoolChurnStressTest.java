package io.partita.backend.acl.internal.memory;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.api.Test;

/**
 * Reserve/unreserve churn on a few cached managers sharing one budget, from 6 threads, while one
 * thread keeps clearing and replacing managers (an eviction mid-run): no pool is ever reserved
 * twice at once, nothing written by one holder is seen changed by another, nothing deadlocks, and
 * once every manager is cleared the pooled bytes are back to 0.
 */
class PoolChurnStressTest {
    private static final int THREADS = 6;
    private static final int ROUNDS = 3000;

    @Test
    void churnNeverSharesAPoolAndLeaksNothing() throws Exception {
        BlobPlan plan = BlobLifetimeManager.plan(List.of(new AuxTensor("a", 256, 0, 1), new AuxTensor("b", 64, 1, 2)));
        // a cap below the peak demand: some pools are transient, which must not leak either
        PoolBudget budget = new PoolBudget(plan.poolBytes() * 8);
        AtomicReferenceArray<CachedMemoryManager> managers = new AtomicReferenceArray<>(3);
        Queue<CachedMemoryManager> all = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < managers.length(); i++) {
            managers.set(i, new CachedMemoryManager(plan, budget));
            all.add(managers.get(i));
        }
        Set<Long> inUse = ConcurrentHashMap.newKeySet();
        AtomicLong clears = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long marker = t + 1;
                done.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(marker);
                    for (int r = 0; r < ROUNDS; r++) {
                        if (marker == 1 && r % 100 == 99) { // eviction: the primitive and its manager go away
                            int i = rnd.nextInt(managers.length());
                            CachedMemoryManager fresh = new CachedMemoryManager(plan, budget);
                            all.add(fresh);
                            managers.getAndSet(i, fresh).clear();
                            clears.incrementAndGet();
                        }
                        MemoryManager mm = managers.get(rnd.nextInt(managers.length()));
                        PoolHandle h = mm.reservePool();
                        try {
                            assertTrue(inUse.add(h.pool().id()), h.pool() + " reserved twice at once");
                            MemorySegment s = h.segment("a");
                            for (int k = 0; k < 32; k++) {
                                s.setAtIndex(JAVA_LONG, k, marker);
                            }
                            Thread.yield();
                            for (int k = 0; k < 32; k++) {
                                assertEquals(marker, s.getAtIndex(JAVA_LONG, k), "pool memory changed under its holder");
                            }
                            assertTrue(inUse.remove(h.pool().id()));
                        } finally {
                            mm.unreservePool(h);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS); // a deadlock fails here instead of hanging the build
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(clears.get() >= 20, "managers cleared mid-run: " + clears.get());
        assertTrue(budget.peakPooledBytes() > 0 && budget.peakPooledBytes() <= budget.capBytes());
        for (CachedMemoryManager mm : all) {
            assertEquals(0, mm.poolManager().reservedCount());
            mm.clear();
        }
        assertEquals(0, budget.pooledBytes(), "pooled bytes after every manager was cleared");
    }
}
