package io.partita.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.partita.cache.BufferProducer;
import io.partita.cache.CacheKey;
import io.partita.cache.CachePolicy;
import io.partita.cache.CacheStats;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantProductionException;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.Lease;

/**
 * Many threads hit, miss, remove, and change capacity and policy at once. Checked: a key is
 * produced once per residency (two cached leases with different buffers imply the key left the
 * cache in between), size never exceeds capacity, no buffer is freed while a lease uses it, every
 * buffer is freed exactly once in the end, and nothing deadlocks (bounded time).
 */
class ConstantTensorCacheStressTest {
    private static final int KEYS = 96;
    private static final int WORKERS = 6;
    private static final long RUN_MS = 3000;

    @Test
    @Timeout(60)
    void mixedLoadKeepsEveryInvariant() throws Exception {
        ConstantTensorCacheImpl cache = new ConstantTensorCacheImpl(Device.CPU);
        AtomicLongArray departures = new AtomicLongArray(KEYS);
        AtomicLong tags = new AtomicLong();
        AtomicInteger produced = new AtomicInteger();
        AtomicInteger frees = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicLong checks = new AtomicLong();

        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            long seed = w;
            threads.add(new Thread(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                while (!stop.get()) {
                    int k = r.nextInt(KEYS);
                    CacheKey key = new CacheKey(k % 3 == 0 ? "acl" : "dnnl", k);
                    long size = (1 + k % 8) * 16L * 1024;
                    BufferProducer producer = () -> {
                        produced.incrementAndGet();
                        if (r.nextInt(50) == 0) {
                            throw new IllegalStateException("injected failure");
                        }
                        return new TestBuffers.Tagged(size, tags.incrementAndGet(), frees);
                    };
                    try (Lease a = cache.getOrAdd(key, size, k * 10L, producer, x -> departures.incrementAndGet(k))) {
                        boolean aCached = a.isCached();
                        long tagA = ((TestBuffers.Tagged) a.buffer()).tag();
                        try (Lease b = cache.getOrAdd(key, size, k * 10L, producer, x -> departures.incrementAndGet(k))) {
                            boolean bCached = b.isCached();
                            long tagB = ((TestBuffers.Tagged) b.buffer()).tag();
                            // A buffer still cached after another one was cached for the same key means
                            // two residencies at once: a double computation.
                            if (aCached && bCached && tagA != tagB && a.isCached()) {
                                failures.add("key " + k + " was produced twice (" + tagA + ", " + tagB
                                        + ") while the first was still cached");
                            }
                            // Use the buffers while holding the leases: they must not be freed.
                            Thread.onSpinWait();
                            if (a.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != tagA
                                    || b.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != tagB) {
                                failures.add("a leased buffer of key " + k + " changed");
                            }
                            Lease again = a.retain();
                            if (again != null) {
                                again.close();
                            }
                        }
                        checks.incrementAndGet();
                    } catch (ConstantProductionException e) {
                        if (!String.valueOf(e.getCause()).contains("injected failure")) {
                            failures.add("unexpected: " + e);
                        }
                    } catch (RuntimeException e) {
                        failures.add("worker: " + e); // e.g. IllegalStateException of a closed arena
                    }
                }
            }, "worker-" + w));
        }
        threads.add(new Thread(() -> {
            SplittableRandom r = new SplittableRandom(99);
            long[] capacities = {256 * 1024, 1 << 20, 4 << 20, 0, ConstantTensorCache.UNLIMITED};
            CachePolicy[] policies = CachePolicy.values();
            while (!stop.get()) {
                switch (r.nextInt(4)) {
                    case 0 -> cache.setCapacity(capacities[r.nextInt(capacities.length)]);
                    case 1 -> cache.setPolicy(policies[r.nextInt(policies.length)]);
                    case 2 -> cache.removeIfExist(new CacheKey("dnnl", r.nextInt(KEYS)));
                    default -> cache.removeBackend("acl");
                }
                try {
                    Thread.sleep(r.nextInt(2));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "settings"));
        threads.add(new Thread(() -> {
            while (!stop.get()) {
                CacheStats s = cache.stats();
                if (s.sizeBytes() > s.capacityBytes()) {
                    failures.add("size " + s.sizeBytes() + " > capacity " + s.capacityBytes());
                }
                if (s.sizeBytes() < 0) {
                    failures.add("negative size " + s.sizeBytes());
                }
                Thread.onSpinWait();
            }
        }, "observer"));

        threads.forEach(Thread::start);
        Thread.sleep(RUN_MS);
        stop.set(true);
        for (Thread t : threads) {
            t.join(20_000);
            assertTrue(!t.isAlive(), t.getName() + " is stuck (deadlock?)");
        }
        assertTrue(failures.isEmpty(), () -> failures.size() + " failures, first: " + failures.peek());
        assertTrue(checks.get() > 1000, "enough work was done: " + checks.get());

        cache.setCapacity(0); // flush everything; every lease is closed
        assertEquals(0, cache.size());
        int producedBuffers = (int) tags.get();
        assertEquals(producedBuffers, frees.get(), "every buffer freed exactly once");
        CacheStats s = cache.stats();
        assertTrue(s.hits() > 0 && s.misses() > 0 && s.evictions() > 0, s.describe());
        System.out.printf("stress: %d checked pairs, %d productions, %s%n", checks.get(), produced.get(), s.describe());
    }

    @Test
    @Timeout(30)
    void unlimitedCapacityProducesEachKeyExactlyOnceUnderContention() throws Exception {
        ConstantTensorCacheImpl cache = new ConstantTensorCacheImpl(Device.CPU);
        AtomicIntegerArrayCounter counts = new AtomicIntegerArrayCounter(KEYS);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            threads.add(new Thread(() -> {
                for (int i = 0; i < 20_000; i++) {
                    int k = i % KEYS;
                    try (Lease l = cache.getOrAdd(new CacheKey("dnnl", k), 64, () -> {
                        counts.increment(k);
                        return ConstantBuffer.allocateHost(64);
                    })) {
                        l.segment();
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(25_000);
        }
        for (int k = 0; k < KEYS; k++) {
            assertEquals(1, counts.get(k), "key " + k + " produced once");
        }
    }

    /** Per-key production counts. */
    private static final class AtomicIntegerArrayCounter {
        private final java.util.concurrent.atomic.AtomicIntegerArray a;

        AtomicIntegerArrayCounter(int n) {
            a = new java.util.concurrent.atomic.AtomicIntegerArray(n);
        }

        void increment(int k) {
            a.incrementAndGet(k);
        }

        int get(int k) {
            return a.get(k);
        }
    }
}
