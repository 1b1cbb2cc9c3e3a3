package io.partita.backend.acl.internal.memory;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The pools of one memory manager: a free list and a reserved set under one lock, and a semaphore
 * counting free pools so that a reservation either takes a free pool at once or learns there is
 * none (then the caller creates one) without holding the lock. After {@link #clear()} free pools
 * are freed at once and reserved ones when they are unreserved.
 */
public final class PoolManager {
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Pool> free = new ArrayDeque<>();
    private final Set<Pool> reserved = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Semaphore freePools = new Semaphore(0);
    private final PoolBudget budget;
    private boolean cleared;

    public PoolManager(PoolBudget budget) {
        this.budget = budget;
    }

    /** A free pool, now reserved; null when none is free (or the manager was cleared). */
    public Pool tryReservePool() {
        if (!freePools.tryAcquire()) {
            return null;
        }
        return takeFree();
    }

    /** Waits up to the timeout for a free pool; null if none came. */
    public Pool reservePool(long timeout, TimeUnit unit) throws InterruptedException {
        if (!freePools.tryAcquire(timeout, unit)) {
            return null;
        }
        return takeFree();
    }

    private Pool takeFree() {
        lock.lock();
        try {
            Pool p = free.pollFirst();
            if (p == null) { // cleared meanwhile: clear() drained the list and the permits
                return null;
            }
            reserved.add(p);
            return p;
        } finally {
            lock.unlock();
        }
    }

    /** Adds a new pool as reserved by its creator (kept: the budget already counts it); false once cleared. */
    boolean registerReserved(Pool pool) {
        lock.lock();
        try {
            if (cleared) {
                return false;
            }
            reserved.add(pool);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Returns a reserved pool to the free list, or frees it if the manager was cleared. */
    public void unreservePool(Pool pool) {
        boolean freeIt;
        lock.lock();
        try {
            if (!reserved.remove(pool)) {
                throw new IllegalStateException(pool + " is not reserved here: unreserved twice or by another manager");
            }
            freeIt = cleared;
            if (!freeIt) {
                free.addLast(pool);
                freePools.release();
            }
        } finally {
            lock.unlock();
        }
        if (freeIt) {
            pool.close();
            budget.release(pool.byteSize());
        }
    }

    /** Frees the free pools now and every reserved pool when it comes back; no pool is handed out afterwards. */
    public void clear() {
        ArrayDeque<Pool> drop;
        lock.lock();
        try {
            cleared = true;
            freePools.drainPermits();
            drop = new ArrayDeque<>(free);
            free.clear();
        } finally {
            lock.unlock();
        }
        for (Pool p : drop) {
            p.close();
            budget.release(p.byteSize());
        }
    }

    public boolean isCleared() {
        lock.lock();
        try {
            return cleared;
        } finally {
            lock.unlock();
        }
    }

    public int freeCount() {
        lock.lock();
        try {
            return free.size();
        } finally {
            lock.unlock();
        }
    }

    public int reservedCount() {
        lock.lock();
        try {
            return reserved.size();
        } finally {
            lock.unlock();
        }
    }

    public int poolCount() {
        lock.lock();
        try {
            return free.size() + reserved.size();
        } finally {
            lock.unlock();
        }
    }
}
