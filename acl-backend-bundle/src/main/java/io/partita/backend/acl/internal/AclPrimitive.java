package io.partita.backend.acl.internal;

import io.partita.backend.acl.internal.memory.BlobLifetimeManager;
import io.partita.backend.acl.internal.memory.CachedMemoryManager;
import io.partita.backend.acl.internal.memory.MemoryManager;
import io.partita.backend.acl.internal.memory.OnDemandMemoryManager;
import io.partita.backend.acl.internal.memory.PoolBudget;
import io.partita.backend.acl.internal.memory.PoolHandle;
import io.partita.backend.acl.internal.ops.Operator;

/**
 * A configured operator and its memory manager, kept in the primitive cache. Each run reserves a
 * pool and unreserves it afterwards, so concurrent runs of one primitive never share scratch and
 * a cached primitive reuses its pools; evicting it ({@link #close()}) frees them.
 */
final class AclPrimitive {
    private final Object desc;
    private final Operator operator;
    private final MemoryManager memory;
    private volatile boolean closed;

    AclPrimitive(Object desc, Operator operator, PoolBudget budget, boolean cached) {
        this.desc = desc;
        this.operator = operator;
        var plan = BlobLifetimeManager.plan(operator.auxTensors());
        this.memory = cached ? new CachedMemoryManager(plan, budget) : new OnDemandMemoryManager(plan, budget);
    }

    /** Runs with a pool reserved for this run alone; {@code body} receives it. */
    void execute(java.util.function.Consumer<PoolHandle> body) {
        PoolHandle pool = memory.reservePool();
        try {
            body.accept(pool);
        } finally {
            memory.unreservePool(pool);
        }
    }

    Operator operator() {
        return operator;
    }

    MemoryManager memory() {
        return memory;
    }

    /** The primitive left the cache: its pools go (reserved ones once their runs finish). */
    void close() {
        closed = true;
        memory.clear();
    }

    /** Whether the primitive left the cache (its runs still work, on pools used once). */
    boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "acl primitive " + desc + " (pool " + memory.plan().poolBytes() + " bytes)";
    }
}
