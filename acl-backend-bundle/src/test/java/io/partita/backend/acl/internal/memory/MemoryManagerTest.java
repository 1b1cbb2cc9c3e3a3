package io.partita.backend.acl.internal.memory;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class MemoryManagerTest {
    static final BlobPlan PLAN = BlobLifetimeManager.plan(List.of(new AuxTensor("im2col", 4096, 0, 1),
            new AuxTensor("acc", 1024, 1, 2)));

    @Test
    void theCachedManagerReusesAnUnreservedPool() {
        PoolBudget budget = new PoolBudget(1 << 20);
        CachedMemoryManager mm = new CachedMemoryManager(PLAN, budget);
        PoolHandle first = mm.reservePool();
        Pool pool = first.pool();
        mm.unreservePool(first);
        for (int i = 0; i < 10; i++) {
            PoolHandle h = mm.reservePool();
            assertSame(pool, h.pool());
            mm.unreservePool(h);
        }
        assertEquals(1, mm.poolsCreated());
        assertEquals(PLAN.poolBytes(), budget.pooledBytes());
        assertEquals(1, mm.poolManager().freeCount());
        mm.clear();
        assertEquals(0, budget.pooledBytes());
        assertFalse(pool.isAlive());
    }

    @Test
    void theBudgetCountsNativePoolAllocationsOfBothManagers() {
        PoolBudget budget = new PoolBudget(1 << 20);
        CachedMemoryManager cached = new CachedMemoryManager(PLAN, budget);
        OnDemandMemoryManager onDemand = new OnDemandMemoryManager(PLAN, budget);
        for (int i = 0; i < 5; i++) {
            cached.unreservePool(cached.reservePool());
        }
        assertEquals(1, budget.poolAllocations());
        assertEquals(PLAN.poolBytes(), budget.livePoolBytes());
        PoolHandle a = onDemand.reservePool();
        PoolHandle b = onDemand.reservePool();
        assertEquals(3 * PLAN.poolBytes(), budget.livePoolBytes());
        onDemand.unreservePool(a);
        onDemand.unreservePool(b);
        onDemand.unreservePool(onDemand.reservePool());
        assertEquals(4, budget.poolAllocations());
        assertEquals(4 * PLAN.poolBytes(), budget.poolBytesAllocated());
        assertEquals(PLAN.poolBytes(), budget.livePoolBytes());
        assertEquals(3 * PLAN.poolBytes(), budget.peakLivePoolBytes());
        assertEquals(0, budget.pooledBytes() - PLAN.poolBytes(), "on-demand pools are never kept");
        cached.clear();
        assertEquals(0, budget.livePoolBytes());
    }

    @Test
    void poolTimeGrowsWithEveryOnDemandRunAndNotWithCachedReuse() {
        PoolBudget budget = new PoolBudget(1 << 20);
        CachedMemoryManager cached = new CachedMemoryManager(PLAN, budget);
        cached.unreservePool(cached.reservePool()); // the one pool it allocates
        long afterFirst = budget.poolNanos();
        assertTrue(afterFirst > 0, "allocating a pool takes time");
        for (int i = 0; i < 50; i++) {
            cached.unreservePool(cached.reservePool());
        }
        assertEquals(afterFirst, budget.poolNanos(), "reusing a kept pool allocates nothing");
        OnDemandMemoryManager onDemand = new OnDemandMemoryManager(PLAN, budget);
        long before = budget.poolNanos();
        for (int i = 0; i < 50; i++) {
            long t = budget.poolNanos();
            onDemand.unreservePool(onDemand.reservePool());
            assertTrue(budget.poolNanos() > t, "run " + i + " allocated and freed a pool");
        }
        assertTrue(budget.poolNanos() > before);
        cached.clear();
    }

    @Test
    void concurrentReservationsGetDistinctPools() {
        CachedMemoryManager mm = new CachedMemoryManager(PLAN, new PoolBudget(1 << 20));
        PoolHandle a = mm.reservePool();
        PoolHandle b = mm.reservePool();
        assertNotSame(a.pool(), b.pool());
        assertEquals(2, mm.poolManager().reservedCount());
        mm.unreservePools(List.of(a, b));
        assertEquals(2, mm.poolManager().freeCount());
        assertEquals(2, mm.reservePools(2).stream().map(PoolHandle::pool).distinct().count());
        assertEquals(2, mm.poolsCreated());
    }

    @Test
    void aReleasedReservationFailsLoudly() {
        CachedMemoryManager mm = new CachedMemoryManager(PLAN, new PoolBudget(1 << 20));
        PoolHandle h = mm.reservePool();
        MemorySegment kept = h.segment("acc");
        mm.unreservePool(h);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> h.segment("acc"));
        assertTrue(e.getMessage().contains("released reservation"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> mm.unreservePool(h));
        mm.clear(); // the pool is free: freed now, so even a segment kept from it fails
        assertThrows(IllegalStateException.class, () -> kept.get(JAVA_INT, 0));
    }

    @Test
    void clearingWhileReservedFreesThePoolWhenItComesBack() {
        PoolBudget budget = new PoolBudget(1 << 20);
        CachedMemoryManager mm = new CachedMemoryManager(PLAN, budget);
        PoolHandle h = mm.reservePool();
        MemorySegment s = h.segment("im2col");
        mm.clear();
        s.set(JAVA_INT, 0, 7); // still reserved: its run may finish
        assertEquals(7, s.get(JAVA_INT, 0));
        mm.unreservePool(h);
        assertThrows(IllegalStateException.class, () -> s.get(JAVA_INT, 0));
        assertEquals(0, budget.pooledBytes());
        // after clear a reservation still works, with a pool used once
        PoolHandle late = mm.reservePool();
        mm.unreservePool(late);
        assertFalse(late.pool().isAlive());
        assertEquals(0, budget.pooledBytes());
    }

    @Test
    void poolsOverTheCapAreUsedOnceAndFreed() {
        PoolBudget budget = new PoolBudget(PLAN.poolBytes()); // room for one pool
        CachedMemoryManager mm = new CachedMemoryManager(PLAN, budget);
        PoolHandle a = mm.reservePool();
        PoolHandle b = mm.reservePool();
        assertEquals(PLAN.poolBytes(), budget.pooledBytes());
        mm.unreservePool(b);
        assertFalse(b.pool().isAlive());
        mm.unreservePool(a);
        assertTrue(a.pool().isAlive());
        assertEquals(PLAN.poolBytes(), budget.peakPooledBytes());
        assertThrows(IllegalArgumentException.class, () -> budget.setCapBytes(-1));
    }

    @Test
    void theOnDemandManagerAllocatesEveryRunAndKeepsNothing() {
        OnDemandMemoryManager mm = new OnDemandMemoryManager(PLAN);
        PoolHandle a = mm.reservePool();
        mm.unreservePool(a);
        PoolHandle b = mm.reservePool();
        assertNotSame(a.pool(), b.pool());
        assertFalse(a.pool().isAlive());
        mm.unreservePool(b);
        assertEquals(2, mm.poolsCreated());
    }

    @Test
    void thePoolManagerWaitsForAFreePoolAndRefusesForeignOnes() throws InterruptedException {
        PoolBudget budget = new PoolBudget(1 << 20);
        CachedMemoryManager mm = new CachedMemoryManager(PLAN, budget);
        PoolManager pm = mm.poolManager();
        assertNull(pm.tryReservePool());
        PoolHandle h = mm.reservePool();
        assertNull(pm.reservePool(10, TimeUnit.MILLISECONDS));
        Thread giver = Thread.ofPlatform().start(() -> mm.unreservePool(h));
        Pool p = pm.reservePool(10, TimeUnit.SECONDS);
        giver.join();
        assertSame(h.pool(), p);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new PoolManager(budget).unreservePool(p));
        assertTrue(e.getMessage().contains("not reserved here"), e.getMessage());
        pm.unreservePool(p);
        mm.clear();
        assertEquals(0, budget.pooledBytes());
    }
}
