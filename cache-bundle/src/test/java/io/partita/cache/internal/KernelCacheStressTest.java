package io.partita.cache.internal;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import io.partita.cache.KernelCacheStats;
import io.partita.cache.KernelCreationException;

/**
 * 32 threads create, hit, remove and fail on a small key space while the capacity churns. Checked
 * (the {@link io.partita.cache.KernelCache} contract): never two factories at once for a key; every
 * created value is either still cached or reported to the eviction listener exactly once; the size
 * is never seen above the capacity; a failure is seen only by askers that started before it was
 * first reported; nothing deadlocks. Runs {@value #DEFAULT_SECONDS} s, or
 * {@code -Dpartita.stress.seconds=N}.
 */
class KernelCacheStressTest {
    static final int DEFAULT_SECONDS = 3;
    private static final long RUN_MS = Long.getLong("partita.stress.seconds", DEFAULT_SECONDS) * 1000;
    private static final int THREADS = 32;
    private static final int KEYS = 48;
    private static final int[] CAPACITIES = {1, 2, 3, 5, 8, 16, 32, 64};

    /** A created value; counts the reports of its departure. */
    static final class Value {
        final int key;
        final long id;
        final AtomicInteger reported = new AtomicInteger();

        Value(int key, long id) {
            this.key = key;
            this.id = id;
        }
    }

    /** An injected factory failure, identified so its observers can be checked. */
    static final class Injected extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        final long id;

        Injected(long id) {
            super("injected failure " + id);
            this.id = id;
        }
    }

    /** Counts problems, keeps the first few (a broken cache can have millions). */
    static final class Problems {
        final LongAdder count = new LongAdder();
        final ConcurrentLinkedQueue<String> first = new ConcurrentLinkedQueue<>();

        void add(String problem) {
            count.increment();
            if (count.sum() <= 10) {
                first.add(problem);
            }
        }
    }

    static Injected injected(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof Injected i) {
                return i;
            }
        }
        return null;
    }

    @Test
    void thirtyTwoThreadsCapacityChurnAndFailingFactoriesKeepTheContract() {
        assertTimeoutPreemptively(Duration.ofMillis(RUN_MS + 60_000), this::run,
                "deadlock: the stress run did not finish");
    }

    private void run() throws InterruptedException {
        LruKernelCache<Integer, Value> cache = new LruKernelCache<>("stress", 8);
        ConcurrentLinkedQueue<Value> created = new ConcurrentLinkedQueue<>();
        Set<Integer> producing = ConcurrentHashMap.newKeySet();
        LongAdder concurrentDuplicates = new LongAdder();
        LongAdder evictionsReported = new LongAdder();
        LongAdder doubleReports = new LongAdder();
        LongAdder factoryFailures = new LongAdder();
        LongAdder sizeAboveCapacity = new LongAdder();
        LongAdder calls = new LongAdder();
        AtomicLong ids = new AtomicLong();
        AtomicLong capacityVersion = new AtomicLong(); // odd while the churn thread changes the capacity
        ConcurrentHashMap<Long, Long> firstSeen = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<long[]> failureSightings = new ConcurrentLinkedQueue<>(); // {id, askerStart}
        Problems problems = new Problems();
        AtomicBoolean stop = new AtomicBoolean();

        cache.addEvictionListener((k, v) -> {
            evictionsReported.increment();
            if (v.key != k) {
                problems.add("value of key " + v.key + " reported for key " + k);
            }
            if (v.reported.incrementAndGet() != 1) {
                doubleReports.increment();
            }
        });

        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < THREADS; w++) {
            long seed = 1000 + w;
            threads.add(new Thread(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                Function<Integer, Value> factory = k -> {
                    if (!producing.add(k)) {
                        concurrentDuplicates.increment();
                    }
                    try {
                        if (r.nextInt(4) == 0) {
                            LockSupport.parkNanos(r.nextInt(200_000)); // widen the windows: let others run
                        } else {
                            Thread.yield();
                        }
                        if (r.nextInt(25) == 0) {
                            factoryFailures.increment();
                            throw new Injected(ids.incrementAndGet());
                        }
                        Value v = new Value(k, ids.incrementAndGet());
                        created.add(v);
                        return v;
                    } finally {
                        producing.remove(k);
                    }
                };
                while (!stop.get()) {
                    int k = r.nextInt(r.nextBoolean() ? 6 : KEYS); // a few hot keys, many cold ones
                    int op = r.nextInt(100);
                    if (op < 90) {
                        long t0 = System.nanoTime();
                        try {
                            Value v = cache.getOrCreate(k, factory);
                            if (v == null || v.key != k) {
                                problems.add("getOrCreate(" + k + ") returned " + (v == null ? null : v.key));
                            }
                        } catch (KernelCreationException e) {
                            Injected i = injected(e);
                            if (i == null) {
                                problems.add("unexpected: " + e);
                            } else {
                                firstSeen.merge(i.id, System.nanoTime(), Math::min);
                                failureSightings.add(new long[] {i.id, t0});
                            }
                        }
                        calls.increment();
                    } else if (op < 95) {
                        Value v = cache.getIfPresent(k);
                        if (v != null && v.key != k) {
                            problems.add("getIfPresent(" + k + ") returned the value of " + v.key);
                        }
                    } else if (op < 99) {
                        cache.remove(k);
                    } else {
                        int m = 2 + r.nextInt(9);
                        cache.removeIf(x -> x % m == 0);
                    }
                }
            }, "kernel-stress-" + w));
        }
        threads.add(new Thread(() -> {
            SplittableRandom r = new SplittableRandom(7);
            while (!stop.get()) {
                capacityVersion.incrementAndGet();
                cache.setCapacity(CAPACITIES[r.nextInt(CAPACITIES.length)]);
                capacityVersion.incrementAndGet();
                LockSupport.parkNanos(r.nextInt(2_000_000));
            }
        }, "kernel-stress-capacity"));
        threads.add(new Thread(() -> {
            while (!stop.get()) {
                KernelCacheStats s = cache.stats();
                if (s.entries() > s.capacity()) {
                    sizeAboveCapacity.increment();
                    problems.add("stats: size " + s.entries() + " > capacity " + s.capacity());
                }
                // The unlocked reads too, when no capacity change overlapped them.
                long v0 = capacityVersion.get();
                int cap = cache.capacity();
                int size = cache.size();
                if ((v0 & 1) == 0 && capacityVersion.get() == v0 && size > cap) {
                    sizeAboveCapacity.increment();
                    problems.add("size() " + size + " > capacity() " + cap);
                }
                Thread.yield();
            }
        }, "kernel-stress-observer"));

        threads.forEach(t -> {
            t.setDaemon(true); // a deadlocked run must not keep the JVM alive
            t.start();
        });
        Thread.sleep(RUN_MS);
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }

        // Quiescent: everything created is either cached or was reported exactly once.
        Map<Value, Boolean> live = new IdentityHashMap<>();
        for (int k = 0; k < KEYS; k++) {
            Value v = cache.getIfPresent(k);
            if (v != null) {
                live.put(v, true);
            }
        }
        long lost = 0;
        long reportedWhileLive = 0;
        for (Value v : created) {
            int n = v.reported.get();
            if (live.containsKey(v)) {
                reportedWhileLive += n;
            } else if (n == 0) {
                lost++;
            }
        }
        long lateFailures = 0;
        for (long[] s : failureSightings) {
            if (s[1] > firstSeen.get(s[0])) {
                lateFailures++; // started after the failure had been reported to someone: not a waiter of it
            }
        }
        int sizeAtRest = cache.size();
        int capacityAtRest = cache.capacity();
        String summary = String.format(
                "kernel stress %d s, %d threads: %d calls, %d creations, %d evictions reported, %d live, lost %d,"
                        + " double reports %d, reported while live %d, concurrent duplicates %d, factory failures %d,"
                        + " failure sightings %d (late %d), size above capacity seen %d, at rest size %d / capacity %d, %s",
                RUN_MS / 1000, THREADS, calls.sum(), created.size(), evictionsReported.sum(), live.size(), lost,
                doubleReports.sum(), reportedWhileLive, concurrentDuplicates.sum(), factoryFailures.sum(),
                failureSightings.size(), lateFailures, sizeAboveCapacity.sum(), sizeAtRest, capacityAtRest,
                cache.stats().describe());
        System.out.println(summary);

        cache.clear(); // now every created value must have been reported exactly once
        long notReportedOnce = created.stream().filter(v -> v.reported.get() != 1).count();

        long lostF = lost;
        long reportedWhileLiveF = reportedWhileLive;
        long lateFailuresF = lateFailures;
        assertAll(summary,
                () -> assertEquals(0, lostF, "values neither cached nor reported"),
                () -> assertEquals(0, doubleReports.sum(), "values reported more than once"),
                () -> assertEquals(0, reportedWhileLiveF, "values reported but still cached"),
                () -> assertEquals(0, concurrentDuplicates.sum(), "two factories at once for a key"),
                () -> assertEquals(0, lateFailuresF, "failures seen by askers that came after them"),
                () -> assertEquals(0, sizeAboveCapacity.sum(), "size above capacity"),
                () -> assertTrue(sizeAtRest <= capacityAtRest, "at rest: size " + sizeAtRest + " > " + capacityAtRest),
                () -> assertEquals(live.size(), sizeAtRest, "size() counts the cached values"),
                () -> assertEquals(0, notReportedOnce, "after clear(): values not reported exactly once"),
                () -> assertEquals(0, problems.count.sum(), () -> "problems, first: " + problems.first),
                () -> assertTrue(created.size() > 1000, "enough work was done"),
                () -> assertTrue(factoryFailures.sum() > 0 && evictionsReported.sum() > 0, "failures and evictions happened"));
    }
}
