package io.partita.backend.acl.internal.memory;

import java.util.concurrent.atomic.AtomicLong;

/** The baseline: a new pool for every reservation, freed when it is unreserved. Keeps nothing. */
public final class OnDemandMemoryManager implements MemoryManager {
    private final BlobPlan plan;
    private final AtomicLong created = new AtomicLong();
    /** Only counts the pools' native memory; nothing is kept against its cap. Null for none. */
    private final PoolBudget stats;

    public OnDemandMemoryManager(BlobPlan plan) {
        this(plan, null);
    }

    public OnDemandMemoryManager(BlobPlan plan, PoolBudget stats) {
        this.plan = plan;
        this.stats = stats;
    }

    @Override
    public BlobPlan plan() {
        return plan;
    }

    @Override
    public PoolHandle reservePool() {
        created.incrementAndGet();
        return new PoolHandle(new Pool(plan, stats), true);
    }

    @Override
    public void unreservePool(PoolHandle handle) {
        MemoryManager.requireNotReleased(handle);
        handle.pool().close();
    }

    @Override
    public void clear() {
        // nothing kept
    }

    @Override
    public long poolsCreated() {
        return created.get();
    }
}
