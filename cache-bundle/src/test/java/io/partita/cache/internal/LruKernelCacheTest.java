package io.partita.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.partita.cache.KernelCreationException;

/** The kernel cache's rules. */
class LruKernelCacheTest {

    @Test
    void createsOnceAndHits() {
        LruKernelCache<String, String> c = new LruKernelCache<>("t", 10);
        AtomicInteger calls = new AtomicInteger();
        assertEquals("A", c.getOrCreate("a", k -> {
            calls.incrementAndGet();
            return "A";
        }));
        assertEquals("A", c.getOrCreate("a", k -> "other"));
        assertEquals("A", c.getIfPresent("a"));
        assertNull(c.getIfPresent("b"));
        assertEquals(1, calls.get());
        assertEquals(2, c.stats().hits());
        assertEquals(2, c.stats().misses());
    }

    @Test
    @Timeout(20)
    void keysListCreatedValuesOnlyNotOnesBeingCreatedNorEvictedNorFailed() throws Exception {
        LruKernelCache<String, String> c = new LruKernelCache<>("t", 2);
        c.getOrCreate("a", k -> "A");
        c.getOrCreate("b", k -> "B");
        c.getOrCreate("c", k -> "C"); // capacity 2: one of the older goes
        assertEquals(2, c.keys().size(), c.keys().toString());
        assertTrue(c.keys().contains("c"), c.keys().toString());
        assertThrows(io.partita.cache.KernelCreationException.class, () -> c.getOrCreate("f", k -> {
            throw new IllegalStateException("no");
        }));
        assertFalse(c.keys().contains("f"));
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Thread slow = new Thread(() -> c.getOrCreate("slow", k -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "S";
        }));
        slow.start();
        started.await();
        assertFalse(c.keys().contains("slow"), "being created: " + c.keys());
        release.countDown();
        slow.join();
        assertTrue(c.keys().contains("slow"), c.keys().toString());
        c.remove("slow");
        assertFalse(c.keys().contains("slow"));
    }

    @Test
    @Timeout(20)
    void oneProducerPerKeyTheOthersWait() throws Exception {
        LruKernelCache<String, Integer> c = new LruKernelCache<>("t", 10);
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Integer>> fs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            fs.add(pool.submit(() -> c.getOrCreate("k", k -> {
                calls.incrementAndGet();
                inside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return 7;
            })));
            if (i == 0) {
                assertTrue(inside.await(10, TimeUnit.SECONDS));
            }
        }
        Thread.sleep(100);
        release.countDown();
        for (Future<Integer> f : fs) {
            assertEquals(7, f.get(10, TimeUnit.SECONDS));
        }
        pool.shutdown();
        assertEquals(1, calls.get());
    }

    @Test
    void aFailedCreationIsNotCached() {
        LruKernelCache<String, String> c = new LruKernelCache<>("primitives", 10);
        KernelCreationException e = assertThrows(KernelCreationException.class, () -> c.getOrCreate("k", k -> {
            throw new IllegalArgumentException("unsupported shape");
        }));
        assertTrue(e.getMessage().contains("primitives: creating the value for k failed"), e.getMessage());
        assertEquals(0, c.size());
        assertEquals("ok", c.getOrCreate("k", k -> "ok"));
        assertThrows(KernelCreationException.class, () -> c.getOrCreate("n", k -> null));
    }

    @Test
    void evictsTheLeastRecentlyUsedAndLoweringEvictsOnlyTheExcess() {
        LruKernelCache<Integer, String> c = new LruKernelCache<>("t", 3);
        List<Integer> evicted = new ArrayList<>();
        c.addEvictionListener((k, v) -> evicted.add(k));
        for (int i = 0; i < 3; i++) {
            c.getOrCreate(i, k -> "v" + k);
        }
        c.getOrCreate(0, k -> "x"); // 0 is now the most recently used
        c.getOrCreate(3, k -> "v3");
        assertEquals(List.of(1), evicted);
        c.setCapacity(2);
        assertEquals(List.of(1, 2), evicted, "only the excess, least recently used first");
        assertEquals(2, c.size());
        c.setCapacity(10);
        assertEquals(2, c.size(), "raising keeps everything");
        assertEquals(2, c.stats().evictions());
        assertThrows(IllegalArgumentException.class, () -> c.setCapacity(-1));
    }

    @Test
    void removeIfAndZeroCapacity() {
        LruKernelCache<String, String> c = new LruKernelCache<>("t", 10);
        List<String> told = new ArrayList<>();
        var reg = c.addEvictionListener((k, v) -> told.add(k));
        c.getOrCreate("dnnl:a", k -> "1");
        c.getOrCreate("dnnl:b", k -> "2");
        c.getOrCreate("acl:a", k -> "3");
        assertEquals(2, c.removeIf(k -> k.startsWith("dnnl:")));
        assertEquals(1, c.size());
        assertEquals(2, told.size());
        reg.close();
        c.remove("acl:a");
        assertEquals(2, told.size(), "unregistered");
        c.setCapacity(0);
        AtomicInteger calls = new AtomicInteger();
        c.getOrCreate("z", k -> "z" + calls.incrementAndGet());
        c.getOrCreate("z", k -> "z" + calls.incrementAndGet());
        assertEquals(2, calls.get(), "nothing is cached at capacity 0");
        assertEquals(0, c.size());
    }

    @Test
    @Timeout(20)
    void aValueBeingCreatedIsNeitherEvictedNorOrphanedAndARemovalWhileCreatingReportsIt() throws Exception {
        LruKernelCache<String, String> c = new LruKernelCache<>("t", 1);
        List<String> told = java.util.Collections.synchronizedList(new ArrayList<>());
        c.addEvictionListener((k, v) -> told.add(k + "=" + v));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread creator = new Thread(() -> c.getOrCreate("a", k -> {
            inside.countDown();
            awaitUninterruptibly(release);
            return "A";
        }), "creator");
        creator.setDaemon(true);
        creator.start();
        assertTrue(inside.await(10, TimeUnit.SECONDS));
        assertEquals("B", c.getOrCreate("b", k -> "B"), "fills the capacity: 'a' is not counted before it exists");
        assertEquals(1, c.size());
        AtomicInteger secondFactory = new AtomicInteger();
        AtomicReference<String> waiterGot = new AtomicReference<>();
        Thread waiter = new Thread(() -> waiterGot.set(c.getOrCreate("a", k -> "A" + secondFactory.incrementAndGet())),
                "waiter");
        waiter.setDaemon(true);
        waiter.start();
        awaitParked(waiter);
        release.countDown();
        creator.join(10_000);
        waiter.join(10_000);
        assertEquals(0, secondFactory.get(), "one factory per key");
        assertEquals("A", waiterGot.get());
        assertEquals("A", c.getIfPresent("a"), "the created value is cached, not orphaned");
        assertEquals(List.of("b=B"), told, "'b' made room for it, and was reported");
        assertEquals(1, c.size());

        CountDownLatch inside2 = new CountDownLatch(1);
        CountDownLatch release2 = new CountDownLatch(1);
        Thread creator2 = new Thread(() -> c.getOrCreate("c", k -> {
            inside2.countDown();
            awaitUninterruptibly(release2);
            return "C";
        }), "creator2");
        creator2.setDaemon(true);
        creator2.start();
        assertTrue(inside2.await(10, TimeUnit.SECONDS));
        assertTrue(c.remove("c"), "a key being created can be removed");
        release2.countDown();
        creator2.join(10_000);
        assertNull(c.getIfPresent("c"), "removed while created: not cached");
        assertEquals(List.of("b=B", "c=C"), told, "and its value is reported once it exists");
        assertEquals("A", c.getIfPresent("a"));
    }

    @Test
    @Timeout(30)
    void aWaiterInterruptedWhileTheProducerHangsGetsAnExceptionAndKeepsItsInterrupt() throws Exception {
        LruKernelCache<String, String> c = new LruKernelCache<>("primitives", 10);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread producer = new Thread(() -> c.getOrCreate("conv1", k -> {
            inside.countDown();
            awaitUninterruptibly(release); // a hung producer
            return "v";
        }), "hung-producer");
        producer.setDaemon(true);
        producer.start();
        try {
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicBoolean stillInterrupted = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                try {
                    c.getOrCreate("conv1", k -> "other");
                } catch (Throwable t) {
                    thrown.set(t);
                }
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }, "waiter");
            waiter.setDaemon(true);
            waiter.start();
            awaitParked(waiter);
            long t0 = System.nanoTime();
            waiter.interrupt();
            waiter.join(5_000);
            assertFalse(waiter.isAlive(), "the interrupted waiter still waits for the hung producer");
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
            KernelCreationException e = assertInstanceOf(KernelCreationException.class, thrown.get());
            assertTrue(e.getMessage().contains("interrupted") && e.getMessage().contains("conv1"), e.getMessage());
            assertInstanceOf(InterruptedException.class, e.getCause());
            assertTrue(stillInterrupted.get(), "the waiter's interrupt status is kept");
        } finally {
            release.countDown();
        }
        producer.join(10_000);
        assertEquals("v", c.getIfPresent("conv1"), "the producer is not disturbed by its waiter's interrupt");
    }

    @Test
    void aFactoryAskingForItsOwnKeyGetsAnErrorNamingTheKeyNotADeadlock() {
        LruKernelCache<String, String> c = new LruKernelCache<>("primitives", 10);
        KernelCreationException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(KernelCreationException.class,
                        () -> c.getOrCreate("conv1", k -> "outer" + c.getOrCreate("conv1", k2 -> "inner"))),
                "a re-entrant getOrCreate deadlocks");
        assertTrue(e.getMessage().contains("conv1") && e.getMessage().contains("re-entrant"), e.getMessage());
        assertEquals(0, c.size(), "nothing cached for the failed key");
        assertEquals("ok", c.getOrCreate("conv1", k -> "ok"), "the next caller retries");
    }

    static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits (bounded) until the thread blocks (it then waits for the producer) or ends (a broken cache). */
    static void awaitParked(Thread t) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING
                && t.getState() != Thread.State.TERMINATED) {
            assertTrue(System.nanoTime() < end, t.getName() + " never blocked: " + t.getState());
            Thread.sleep(1);
        }
    }
}
