package io.partita.backend.acl.internal.memory;

import java.util.concurrent.atomic.AtomicLong;

/** The baseline: a new pool for every reservation, freed when it is unreserved. Keeps nothing. */
public final class OnDemandMemoryManager implements MemoryManager {
    private final BlobPlan plan;
    private final AtomicLong created = new AtomicLong();

    public OnDemandMemoryManager(BlobPlan plan) {
        this.plan = plan;
    }

    @Override
    public BlobPlan plan() {
        return plan;
    }

    @Override
    public PoolHandle reservePool() {
        created.incrementAndGet();
        return new PoolHandle(new Pool(plan), true);
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
