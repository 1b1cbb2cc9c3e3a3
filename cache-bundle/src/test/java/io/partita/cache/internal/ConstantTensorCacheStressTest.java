package io.partita.cache.internal;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

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
import io.partita.cache.EvictionListener;
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

    /**
     * 32 threads on hot and cold keys while the capacity and policy churn and one production in
     * ten fails (slowly, so askers queue behind it). A failure must reach only the askers that were
     * already waiting for it: an asker that starts after the failure was first reported retries.
     * Also: size never above capacity, each entry's listener told at most once, every buffer freed
     * exactly once, no deadlock. Runs 3 s, or {@code -Dpartita.stress.seconds=N}.
     */
    @Test
    void thirtyTwoThreadsWithFailingProducersAndCapacityChurn() {
        long runMs = Long.getLong("partita.stress.seconds", 3) * 1000;
        assertTimeoutPreemptively(Duration.ofMillis(runMs + 60_000), () -> failingProducersRun(runMs),
                "deadlock: the stress run did not finish");
    }

    private void failingProducersRun(long runMs) throws InterruptedException {
        ConstantTensorCacheImpl cache = new ConstantTensorCacheImpl(Device.CPU);
        cache.setPolicy(CachePolicy.LRU);
        cache.setCapacity(256 * 1024);
        AtomicLong ids = new AtomicLong();
        AtomicInteger frees = new AtomicInteger();
        LongAdder calls = new LongAdder();
        LongAdder productions = new LongAdder();
        LongAdder injectedFailures = new LongAdder();
        LongAdder listenerTwice = new LongAdder();
        LongAdder departures = new LongAdder();
        LongAdder sizeAboveCapacity = new LongAdder();
        LongAdder problems = new LongAdder();
        ConcurrentLinkedQueue<String> firstProblems = new ConcurrentLinkedQueue<>();
        ConcurrentHashMap<Long, Long> firstSeen = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<long[]> sightings = new ConcurrentLinkedQueue<>(); // {failure id, asker start}
        AtomicBoolean stop = new AtomicBoolean();
        java.util.function.Consumer<String> problem = m -> {
            problems.increment();
            if (problems.sum() <= 10) {
                firstProblems.add(m);
            }
        };

        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 32; w++) {
            long seed = 500 + w;
            threads.add(new Thread(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                while (!stop.get()) {
                    int k = r.nextInt(r.nextInt(4) != 0 ? 4 : KEYS);
                    CacheKey key = new CacheKey(k % 3 == 0 ? "acl" : "dnnl", k);
                    long size = (1 + k % 4) * 4096L;
                    if (r.nextInt(20) == 0) {
                        cache.removeIfExist(key); // keeps productions (and failures) coming on hot keys
                        continue;
                    }
                    BufferProducer producer = () -> {
                        productions.increment();
                        if (r.nextInt(10) == 0) {
                            LockSupport.parkNanos(200_000); // askers queue up behind the failing producer
                            injectedFailures.increment();
                            throw new InjectedFailure(ids.incrementAndGet());
                        }
                        return new TestBuffers.Tagged(size, ids.incrementAndGet(), frees);
                    };
                    AtomicInteger told = new AtomicInteger();
                    EvictionListener listener = x -> {
                        departures.increment();
                        if (told.incrementAndGet() != 1) {
                            listenerTwice.increment();
                        }
                    };
                    long t0 = System.nanoTime();
                    try (Lease l = cache.getOrAdd(key, size, k, producer, listener)) {
                        if (l.buffer().byteSize() != size) {
                            problem.accept("key " + k + ": a buffer of " + l.buffer().byteSize() + " bytes");
                        }
                        l.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0); // still valid
                    } catch (ConstantProductionException e) {
                        InjectedFailure f = null;
                        for (Throwable c = e; c != null && f == null; c = c.getCause()) {
                            f = c instanceof InjectedFailure i ? i : null;
                        }
                        if (f == null) {
                            problem.accept("unexpected: " + e);
                        } else {
                            firstSeen.merge(f.id, System.nanoTime(), Math::min);
                            sightings.add(new long[] {f.id, t0});
                        }
                    } catch (RuntimeException e) {
                        problem.accept("worker: " + e);
                    }
                    calls.increment();
                }
            }, "constant-stress-" + w));
        }
        threads.add(new Thread(() -> {
            SplittableRandom r = new SplittableRandom(3);
            long[] capacities = {16 * 1024, 64 * 1024, 256 * 1024, 1 << 20, 0, ConstantTensorCache.UNLIMITED};
            while (!stop.get()) {
                switch (r.nextInt(10)) {
                    case 0 -> cache.setPolicy(CachePolicy.values()[r.nextInt(CachePolicy.values().length)]);
                    case 1 -> cache.setPolicy(CachePolicy.LRU); // mostly LRU: most misses then find room
                    case 2, 3, 4 -> cache.removeBackend("acl");
                    default -> cache.setCapacity(capacities[r.nextInt(capacities.length)]);
                }
                LockSupport.parkNanos(r.nextInt(2_000_000));
            }
        }, "constant-stress-settings"));
        threads.add(new Thread(() -> {
            while (!stop.get()) {
                CacheStats s = cache.stats();
                if (s.sizeBytes() > s.capacityBytes() || s.sizeBytes() < 0) {
                    sizeAboveCapacity.increment();
                }
                Thread.yield();
            }
        }, "constant-stress-observer"));
        threads.forEach(t -> {
            t.setDaemon(true); // a deadlocked run must not keep the JVM alive
            t.start();
        });
        Thread.sleep(runMs);
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        long late = sightings.stream().filter(s -> s[1] > firstSeen.get(s[0])).count();
        cache.setCapacity(0); // flush: every lease is closed, so every buffer must be freed
        long buffers = ids.get() - injectedFailures.sum();
        String summary = String.format("constant stress %d s, 32 threads: %d calls, %d productions, %d injected failures,"
                + " %d failure sightings (late %d), %d departures told (twice %d), size above capacity seen %d,"
                + " %d buffers, %d frees, %d problems, %s", runMs / 1000, calls.sum(), productions.sum(),
                injectedFailures.sum(), sightings.size(), late, departures.sum(), listenerTwice.sum(),
                sizeAboveCapacity.sum(), buffers, frees.get(), problems.sum(), cache.stats().describe());
        System.out.println(summary);
        assertAll(summary,
                () -> assertEquals(0, late, "failures seen by askers that started after the failure was reported"),
                () -> assertEquals(0, listenerTwice.sum(), "eviction listeners told twice"),
                () -> assertEquals(0, sizeAboveCapacity.sum(), "size above capacity"),
                () -> assertEquals(0, problems.sum(), () -> "problems, first: " + firstProblems),
                () -> assertEquals(buffers, frees.get(), "every buffer freed exactly once"),
                () -> assertEquals(0, cache.size()),
                () -> assertTrue(injectedFailures.sum() > 0 && sightings.size() > injectedFailures.sum(),
                        "failures happened and had waiters"));
    }

    /** An injected production failure, identified so its observers can be checked. */
    private static final class InjectedFailure extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        final long id;

        InjectedFailure(long id) {
            super("injected failure " + id);
            this.id = id;
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
