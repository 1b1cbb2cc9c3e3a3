package io.partita.backend.acl.internal.memory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The seed's cached memory manager: a reservation takes a free pool if there is one and creates
 * one otherwise; unreserving puts the pool on the free list for the next reservation, so a
 * primitive kept in the primitive cache allocates nothing in steady state. Pools the budget cannot
 * keep, and pools asked for after {@link #clear()}, are used once and freed (on-demand behaviour).
 */
public final class CachedMemoryManager implements MemoryManager {
    private final BlobPlan plan;
    private final PoolBudget budget;
    private final PoolManager pools;
    private final AtomicLong created = new AtomicLong();

    public CachedMemoryManager(BlobPlan plan, PoolBudget budget) {
        this.plan = plan;
        this.budget = budget;
        this.pools = new PoolManager(budget);
    }

    @Override
    public BlobPlan plan() {
        return plan;
    }

    @Override
    public PoolHandle reservePool() {
        Pool p = pools.tryReservePool();
        if (p != null) {
            return new PoolHandle(p, false);
        }
        created.incrementAndGet();
        Pool fresh = new Pool(plan, budget);
        if (budget.tryRetain(fresh.byteSize())) {
            if (pools.registerReserved(fresh)) {
                return new PoolHandle(fresh, false);
            }
            budget.release(fresh.byteSize());
        }
        return new PoolHandle(fresh, true);
    }

    @Override
    public void unreservePool(PoolHandle handle) {
        MemoryManager.requireNotReleased(handle);
        if (handle.isTransient()) {
            handle.pool().close();
        } else {
            pools.unreservePool(handle.pool());
        }
    }

    @Override
    public void clear() {
        pools.clear();
    }

    @Override
    public long poolsCreated() {
        return created.get();
    }

    public PoolManager poolManager() {
        return pools;
    }
}
