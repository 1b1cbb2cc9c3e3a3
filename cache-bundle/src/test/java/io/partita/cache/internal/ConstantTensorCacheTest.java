package io.partita.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
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
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.partita.cache.CacheKey;
import io.partita.cache.CachePolicy;
import io.partita.cache.CacheStats;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantProductionException;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.Lease;
import io.partita.cache.internal.TestBuffers.CountingProducer;

/** The constant tensor cache's rules, one by one. */
class ConstantTensorCacheTest {
    private static final long KB = 1024;
    private static final long MB = 1 << 20;

    private static CacheKey key(String backend, Object k) {
        return new CacheKey(backend, k);
    }

    @Test
    void aHitReturnsTheCachedBufferAndProducesOnce() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        CountingProducer p = new CountingProducer(KB);
        try (Lease a = c.getOrAdd(key("dnnl", 1), KB, p); Lease b = c.getOrAdd(key("dnnl", 1), KB, p)) {
            assertSame(a.buffer(), b.buffer());
            assertTrue(a.isCached());
        }
        assertEquals(1, p.calls.get());
        CacheStats s = c.stats();
        assertEquals(1, s.hits());
        assertEquals(1, s.misses());
        assertEquals(1, s.entries());
        assertEquals(KB, s.sizeBytes());
        assertEquals(KB, c.size());
    }

    @Test
    void keysAreComparedByFullEqualityNotByHash() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        record SameHash(String name) {
            @Override
            public int hashCode() {
                return 7;
            }
        }
        CountingProducer p = new CountingProducer(16);
        try (Lease a = c.getOrAdd(key("dnnl", new SameHash("w1")), 16, p);
                Lease b = c.getOrAdd(key("dnnl", new SameHash("w2")), 16, p);
                Lease d = c.getOrAdd(key("acl", new SameHash("w1")), 16, p)) {
            assertEquals(3, p.calls.get());
            assertEquals(1, ((TestBuffers.Tagged) a.buffer()).tag());
            assertEquals(2, ((TestBuffers.Tagged) b.buffer()).tag());
            assertEquals(3, ((TestBuffers.Tagged) d.buffer()).tag());
        }
    }

    @Test
    @Timeout(20)
    void concurrentAskersWaitForTheSingleProducer() throws Exception {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        CountDownLatch inProducer = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        List<Future<Long>> results = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            results.add(pool.submit(() -> {
                try (Lease l = c.getOrAdd(key("dnnl", "w"), 64, () -> {
                    calls.incrementAndGet();
                    inProducer.countDown();
                    release.await();
                    return new TestBuffers.Tagged(64, 42, new AtomicInteger());
                })) {
                    return ((TestBuffers.Tagged) l.buffer()).tag();
                }
            }));
            if (i == 0) {
                assertTrue(inProducer.await(10, TimeUnit.SECONDS));
                assertEquals(64, c.size(), "size counts the entry being produced, without waiting for it");
            }
        }
        Thread.sleep(100); // the others are now waiting on the producer
        release.countDown();
        for (Future<Long> f : results) {
            assertEquals(42L, f.get(10, TimeUnit.SECONDS));
        }
        pool.shutdown();
        assertEquals(1, calls.get());
        assertEquals(4, c.stats().hits());
    }

    @Test
    @Timeout(20)
    void aFailedProducerFailsItsWaitersAndTheNextCallerRetries() throws Exception {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        CountDownLatch inProducer = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<Object> producer = pool.submit(() -> c.getOrAdd(key("dnnl", "w"), 64, () -> {
            inProducer.countDown();
            release.await();
            throw new IllegalStateException("reorder failed");
        }));
        assertTrue(inProducer.await(10, TimeUnit.SECONDS));
        Future<Object> waiter = pool.submit(() -> c.getOrAdd(key("dnnl", "w"), 64, () -> {
            throw new AssertionError("the waiter must not produce");
        }));
        Thread.sleep(100);
        release.countDown();
        for (Future<Object> f : List.of(producer, waiter)) {
            var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof ConstantProductionException, e.toString());
            assertTrue(e.getCause().getMessage().contains("reorder failed"), e.getCause().getMessage());
        }
        pool.shutdown();
        assertEquals(0, c.size());
        assertEquals(0, c.stats().entries());
        CountingProducer p = new CountingProducer(64);
        try (Lease l = c.getOrAdd(key("dnnl", "w"), 64, p)) {
            assertTrue(l.isCached());
        }
        assertEquals(1, p.calls.get());
    }

    @Test
    void aProducerOfTheWrongSizeIsRefused() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        ConstantProductionException e = assertThrows(ConstantProductionException.class,
                () -> c.getOrAdd(key("dnnl", "w"), 64, () -> ConstantBuffer.allocateHost(32)));
        assertTrue(e.getMessage().contains("declared 64 bytes but produced 32"), e.getMessage());
        assertEquals(0, c.size());
    }

    @Test
    void aMissWithoutRoomComputesAPrivateBufferFreedWithItsLease() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        c.setCapacity(MB);
        CountingProducer big = new CountingProducer(MB);
        Lease first = c.getOrAdd(key("dnnl", 1), MB, big);
        CountingProducer more = new CountingProducer(KB);
        Lease second = c.getOrAdd(key("dnnl", 2), KB, more);
        assertTrue(first.isCached());
        assertFalse(second.isCached());
        assertNull(second.retain());
        assertEquals(MB, c.size());
        assertEquals(1, c.stats().uncachedMisses());
        second.close();
        assertEquals(1, more.frees.get(), "a private buffer is freed when its lease closes");
        first.close();
        assertEquals(0, big.frees.get(), "a cached buffer stays");
    }

    @Test
    void theFirstCapacityAndALowerOneFlushAHigherOneDoesNotAndZeroDisables() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        assertEquals(ConstantTensorCache.UNLIMITED, c.capacity());
        fill(c, 3, KB);
        c.setCapacity(10 * MB); // first setting: flushes
        assertEquals(0, c.stats().entries());
        fill(c, 3, KB);
        c.setCapacity(20 * MB); // higher: keeps
        assertEquals(3, c.stats().entries());
        c.setCapacity(5 * MB); // lower: flushes
        assertEquals(0, c.stats().entries());
        fill(c, 2, KB);
        c.setCapacity(0); // disables
        assertEquals(0, c.stats().entries());
        try (Lease l = c.getOrAdd(key("dnnl", "x"), KB, new CountingProducer(KB))) {
            assertFalse(l.isCached());
        }
        assertEquals(0, c.size());
        assertThrows(IllegalArgumentException.class, () -> c.setCapacity(-1));
    }

    private static void fill(ConstantTensorCacheImpl c, int n, long size) {
        for (int i = 0; i < n; i++) {
            c.getOrAdd(key("dnnl", "k" + i), size, new CountingProducer(size)).close();
        }
    }

    @Test
    void noEvictKeepsWhatIsCachedAndNeverExceedsCapacity() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        c.setCapacity(MB);
        for (int i = 0; i < 10; i++) {
            c.getOrAdd(key("dnnl", i), 300 * KB, new CountingProducer(300 * KB)).close();
            assertTrue(c.size() <= c.capacity());
        }
        assertEquals(3, c.stats().entries());
        assertEquals(7, c.stats().uncachedMisses());
        assertEquals(0, c.stats().evictions());
    }

    @Test
    void lruEvictsTheLeastRecentlyUsed() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        c.setCapacity(MB);
        c.setPolicy(CachePolicy.LRU);
        CountingProducer p = new CountingProducer(300 * KB);
        for (int i = 0; i < 3; i++) {
            c.getOrAdd(key("dnnl", i), 300 * KB, p).close();
        }
        c.getOrAdd(key("dnnl", 0), 300 * KB, p).close(); // 0 is now the most recently used
        c.getOrAdd(key("dnnl", 3), 300 * KB, p).close(); // evicts 1
        assertEquals(1, c.stats().evictions());
        int before = p.calls.get();
        c.getOrAdd(key("dnnl", 0), 300 * KB, p).close();
        c.getOrAdd(key("dnnl", 2), 300 * KB, p).close();
        c.getOrAdd(key("dnnl", 3), 300 * KB, p).close();
        assertEquals(before, p.calls.get(), "0, 2 and 3 are still cached");
        c.getOrAdd(key("dnnl", 1), 300 * KB, p).close();
        assertEquals(before + 1, p.calls.get(), "1 was evicted");
        assertTrue(c.size() <= c.capacity());
    }

    @Test
    void costKeepsTheMostExpensivePerByte() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        c.setCapacity(MB);
        c.setPolicy(CachePolicy.COST);
        long size = 400 * KB;
        c.getOrAdd(key("dnnl", "cheap"), size, 1_000, new CountingProducer(size), null).close();
        c.getOrAdd(key("dnnl", "dear"), size, 1_000_000_000_000L, new CountingProducer(size), null).close();
        // cheaper than both per byte: not cached, nothing evicted
        try (Lease l = c.getOrAdd(key("dnnl", "cheaper"), size, 1, new CountingProducer(size), null)) {
            assertFalse(l.isCached());
        }
        assertEquals(0, c.stats().evictions());
        // dearer than "cheap": evicts it, keeps "dear"
        try (Lease l = c.getOrAdd(key("dnnl", "dearer"), size, 1_000_000_000_000_000L, new CountingProducer(size), null)) {
            assertTrue(l.isCached());
        }
        assertEquals(1, c.stats().evictions());
        CountingProducer check = new CountingProducer(size);
        c.getOrAdd(key("dnnl", "dear"), size, 0, check, null).close();
        assertEquals(0, check.calls.get(), "the expensive entry stayed");
    }

    @Test
    void anEvictedBufferStaysValidUntilItsLastLeaseCloses() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        CountingProducer p = new CountingProducer(KB);
        Lease a = c.getOrAdd(key("dnnl", "w"), KB, p);
        Lease b = a.retain();
        assertNotNull(b);
        assertTrue(c.removeIfExist(key("dnnl", "w")));
        assertFalse(a.isCached());
        assertNull(a.retain(), "no new lease once evicted");
        assertEquals(1, ((TestBuffers.Tagged) b.buffer()).tag(), "still readable");
        a.close();
        assertEquals(0, p.frees.get());
        a.close(); // a second close is harmless
        assertEquals(0, p.frees.get());
        b.close();
        assertEquals(1, p.frees.get(), "freed when the last lease closed");
        assertThrows(IllegalStateException.class, b::buffer);
    }

    @Test
    void evictionNotifiesTheHolderOnceOutsideTheLock() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        List<CacheKey> told = new ArrayList<>();
        CacheKey k = key("dnnl", "w");
        // the listener calls back into the cache: it must not deadlock
        c.getOrAdd(k, KB, 0, new CountingProducer(KB), evicted -> {
            told.add(evicted);
            c.stats();
            c.getOrAdd(key("dnnl", "other"), KB, new CountingProducer(KB)).close();
        }).close();
        c.flush();
        assertEquals(List.of(k), told);
        c.flush();
        assertEquals(1, told.size());
    }

    @Test
    void removeBackendDropsOnlyThatBackend() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        for (String b : List.of("dnnl", "acl")) {
            for (int i = 0; i < 3; i++) {
                c.getOrAdd(key(b, i), KB, new CountingProducer(KB)).close();
            }
        }
        assertEquals(3, c.removeBackend("dnnl"));
        assertEquals(3, c.stats().entries());
        assertEquals(3 * KB, c.size());
        assertFalse(c.removeIfExist(key("dnnl", 0)));
    }

    @Test
    @Timeout(30)
    void aWaiterInterruptedWhileTheProducerHangsGetsAnExceptionAndKeepsItsInterrupt() throws Exception {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        CacheKey k = key("dnnl", "w1");
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountingProducer real = new CountingProducer(KB);
        Thread producer = new Thread(() -> c.getOrAdd(k, KB, () -> {
            inside.countDown();
            LruKernelCacheTest.awaitUninterruptibly(release); // a hung producer
            return real.produce();
        }).close(), "hung-producer");
        producer.setDaemon(true);
        producer.start();
        try {
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicBoolean stillInterrupted = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                try {
                    c.getOrAdd(k, KB, new CountingProducer(KB)).close();
                } catch (Throwable t) {
                    thrown.set(t);
                }
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }, "waiter");
            waiter.setDaemon(true);
            waiter.start();
            LruKernelCacheTest.awaitParked(waiter);
            waiter.interrupt();
            waiter.join(5_000);
            assertFalse(waiter.isAlive(), "the interrupted waiter still waits for the hung producer");
            ConstantProductionException e = assertInstanceOf(ConstantProductionException.class, thrown.get());
            assertTrue(e.getMessage().contains("interrupted") && e.getMessage().contains(k.toString()), e.getMessage());
            assertInstanceOf(InterruptedException.class, e.getCause());
            assertTrue(stillInterrupted.get(), "the waiter's interrupt status is kept");
        } finally {
            release.countDown();
        }
        producer.join(10_000);
        assertEquals(1, c.stats().entries(), "the producer is not disturbed by its waiter's interrupt");
        assertTrue(c.removeIfExist(k));
        assertEquals(1, real.frees.get(), "the interrupted waiter's lease was given back: the buffer is freed");
    }

    @Test
    void aProducerAskingForItsOwnKeyGetsAnErrorNamingTheKeyNotADeadlock() {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        CacheKey k = key("dnnl", "w2");
        ConstantProductionException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(ConstantProductionException.class, () -> c.getOrAdd(k, KB, () -> {
                    try (Lease inner = c.getOrAdd(k, KB, new CountingProducer(KB))) {
                        return new CountingProducer(KB).produce();
                    }
                })), "a re-entrant getOrAdd deadlocks");
        assertTrue(e.getMessage().contains(k.toString()) && e.getMessage().contains("re-entrant"), e.getMessage());
        assertEquals(0, c.stats().entries(), "nothing cached for the failed key");
        CountingProducer p = new CountingProducer(KB);
        c.getOrAdd(k, KB, p).close();
        assertEquals(1, p.calls.get(), "the next caller retries");
    }

    /**
     * The failing producer is held up between failing and finishing (the cache's lock is taken by
     * the test, white-box, for a second): an asker that arrives after the failure was reported to a
     * waiter must get a fresh production, not that failure.
     */
    @Test
    @Timeout(30)
    void aFailureReachesOnlyTheAskersAlreadyWaitingNotOneArrivingAfterIt() throws Exception {
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(Device.CPU);
        CacheKey k = key("dnnl", "w3");
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Thread producer = new Thread(() -> {
            try {
                c.getOrAdd(k, KB, () -> {
                    inside.countDown();
                    go.await();
                    throw new IllegalStateException("bad weights");
                }).close();
            } catch (ConstantProductionException expected) {
                // the producer's own failure
            }
        }, "failing-producer");
        AtomicReference<Throwable> waiterGot = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                c.getOrAdd(k, KB, new CountingProducer(KB)).close();
            } catch (Throwable t) {
                waiterGot.set(t);
            }
        }, "waiter");
        Field lockField = ConstantTensorCacheImpl.class.getDeclaredField("lock");
        lockField.setAccessible(true);
        Object lock = lockField.get(c);
        CountDownLatch holding = new CountDownLatch(1);
        Thread lockHolder = new Thread(() -> {
            synchronized (lock) {
                holding.countDown();
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
            }
        }, "lock-holder");
        for (Thread t : new Thread[] {producer, waiter, lockHolder}) {
            t.setDaemon(true);
        }
        producer.start();
        assertTrue(inside.await(10, TimeUnit.SECONDS));
        waiter.start();
        LruKernelCacheTest.awaitParked(waiter); // the waiter holds a lease and waits for the producer
        lockHolder.start();
        assertTrue(holding.await(10, TimeUnit.SECONDS));
        go.countDown(); // the producer fails while the lock is held
        waiter.join(10_000);
        assertInstanceOf(ConstantProductionException.class, waiterGot.get(), "the waiter shares the failure");
        CountingProducer p = new CountingProducer(KB);
        try (Lease l = c.getOrAdd(k, KB, p)) { // arrives after the failure was reported: retries
            assertEquals(KB, l.buffer().byteSize());
        }
        assertEquals(1, p.calls.get());
        producer.join(10_000);
        lockHolder.join(10_000);
    }
}
