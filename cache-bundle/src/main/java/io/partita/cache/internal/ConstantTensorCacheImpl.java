package io.partita.cache.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * The constant tensor cache of one device. Hits take no lock: a map lookup, a lease on a
 * per-thread counter, and an LRU mark written only when it changes. Misses, evictions and
 * settings take the cache's lock; producers and eviction listeners run outside it.
 *
 * <p>LRU is kept in O(1): the list is ordered by insertion or promotion, and a hit only marks the
 * entry with the current tick. Eviction takes the list head; a head marked after it was listed is
 * moved to the tail instead (it was used since), so each eviction is amortized O(1).
 */
final class ConstantTensorCacheImpl implements ConstantTensorCache {
    private static final Logger LOG = LoggerFactory.getLogger(ConstantTensorCacheImpl.class);

    private final Device device;
    private final ConcurrentHashMap<CacheKey, Entry> map = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    /** LRU list, oldest first (sentinel). Guarded by lock. */
    private final Entry head = new Entry(null, 0, 0, null, -1, true);
    /** Entries by recompute cost per byte, cheapest first. Guarded by lock. */
    private final TreeSet<Entry> byCost = new TreeSet<>(
            Comparator.comparingDouble((Entry e) -> e.costPerByte).thenComparingLong(e -> e.seq));
    /** Advances on every insertion and eviction: hits mark entries with it. */
    private volatile long tick;
    private long seq;
    private volatile long capacity = UNLIMITED;
    private volatile CachePolicy policy = CachePolicy.NO_EVICT;
    /** Whether a capacity was ever set (the first setting flushes). Guarded by lock. */
    private boolean capacitySet;
    private volatile long sizeBytes;

    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder uncached = new LongAdder();
    private final LongAdder evictions = new LongAdder();

    ConstantTensorCacheImpl(Device device) {
        this.device = device;
        head.prev = head;
        head.next = head;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public long capacity() {
        return capacity;
    }

    @Override
    public CachePolicy policy() {
        return policy;
    }

    @Override
    public long size() {
        return sizeBytes;
    }

    @Override
    public Lease getOrAdd(CacheKey key, long byteSize, long cost, BufferProducer producer, EvictionListener listener) {
        Entry e = map.get(key);
        if (e != null) {
            LeaseImpl lease = e.tryLease();
            if (lease != null) {
                hits.increment();
                long t = tick;
                if (e.touched != t) {
                    e.touched = t;
                }
                return awaitOrRelease(lease);
            }
        }
        return miss(key, byteSize, cost, producer, listener);
    }

    private static Lease awaitOrRelease(LeaseImpl lease) {
        try {
            lease.entry().await();
            return lease;
        } catch (RuntimeException ex) {
            lease.close();
            throw ex;
        }
    }

    private Lease miss(CacheKey key, long byteSize, long cost, BufferProducer producer, EvictionListener listener) {
        if (byteSize < 0) {
            throw new IllegalArgumentException("constant tensor " + key + ": size must be >= 0, got " + byteSize);
        }
        List<Entry> evicted = new ArrayList<>();
        Entry mine;
        LeaseImpl lease;
        synchronized (lock) {
            Entry e = map.get(key);
            if (e != null) {
                LeaseImpl l = e.tryLease();
                if (l != null) {
                    hits.increment();
                    e.touched = tick;
                    mine = null;
                    lease = l;
                } else {
                    mine = null;
                    lease = null;
                }
            } else {
                mine = null;
                lease = null;
            }
            if (lease == null) {
                misses.increment();
                double perByte = (double) Math.max(cost, 0) / Math.max(byteSize, 1);
                if (makeRoom(byteSize, perByte, evicted)) {
                    mine = new Entry(key, byteSize, perByte, listener, seq++, true);
                    mine.producer = Thread.currentThread();
                    lease = mine.tryLease();
                    map.put(key, mine);
                    link(mine);
                    byCost.add(mine);
                    sizeBytes += byteSize;
                    tick++;
                }
            }
        }
        notifyEvicted(evicted);
        if (lease != null && mine == null) {
            return awaitOrRelease(lease); // someone else's entry appeared meanwhile
        }
        if (mine == null) {
            uncached.increment();
            return producePrivate(key, byteSize, producer);
        }
        produceInto(mine, lease, producer, byteSize);
        return lease;
    }

    private void produceInto(Entry e, LeaseImpl lease, BufferProducer producer, long byteSize) {
        long t0 = System.nanoTime();
        try {
            e.complete(checkedProduce(e.key, producer, byteSize));
        } catch (Throwable t) {
            // Unmap and stop leasing before publishing the failure: an asker arriving from now on
            // retries with its own producer; only askers already holding a lease see this failure.
            synchronized (lock) {
                if (map.remove(e.key, e)) {
                    unlink(e);
                    byCost.remove(e);
                    sizeBytes -= e.size;
                }
                e.markDead();
            }
            e.fail(t);
            e.kill();
            lease.close(); // the producer's own lease, taken in miss()
            throw t instanceof ConstantProductionException c ? c
                    : new ConstantProductionException("computing constant tensor " + e.key + " failed: " + t, t);
        }
        long measured = System.nanoTime() - t0;
        synchronized (lock) {
            double perByte = (double) measured / Math.max(e.size, 1);
            if (perByte > e.costPerByte && byCost.remove(e)) {
                e.costPerByte = perByte;
                byCost.add(e);
            }
        }
    }

    private Lease producePrivate(CacheKey key, long byteSize, BufferProducer producer) {
        Entry e = new Entry(key, byteSize, 0, null, -1, false);
        LeaseImpl lease = e.tryLease();
        e.kill(); // not in the cache: freed when the caller's lease closes
        try {
            e.complete(checkedProduce(key, producer, byteSize));
        } catch (Throwable t) {
            e.fail(t);
            lease.close();
            throw t instanceof ConstantProductionException c ? c
                    : new ConstantProductionException("computing constant tensor " + key + " failed: " + t, t);
        }
        return lease;
    }

    private static ConstantBuffer checkedProduce(CacheKey key, BufferProducer producer, long byteSize) throws Exception {
        ConstantBuffer b = producer.produce();
        if (b == null) {
            throw new IllegalStateException("the producer of constant tensor " + key + " returned no buffer");
        }
        if (b.byteSize() != byteSize) {
            b.free();
            throw new IllegalStateException("the producer of constant tensor " + key + " declared " + byteSize
                    + " bytes but produced " + b.byteSize());
        }
        return b;
    }

    /** Makes room for a new entry per the policy; collects what it evicted. Holds the lock. */
    private boolean makeRoom(long bytes, double perByte, List<Entry> evicted) {
        long cap = capacity;
        if (bytes > cap || cap == 0) {
            return false;
        }
        if (sizeBytes + bytes <= cap) {
            return true;
        }
        switch (policy) {
            case NO_EVICT:
                return false;
            case LRU:
                while (sizeBytes + bytes > cap && head.next != head) {
                    Entry oldest = head.next;
                    if (oldest.touched > oldest.listedAt) {
                        unlink(oldest);
                        link(oldest); // used since it was listed: give it another round
                        continue;
                    }
                    evictLocked(oldest, evicted);
                }
                return sizeBytes + bytes <= cap;
            case COST:
                long freeable = 0;
                List<Entry> victims = new ArrayList<>();
                for (Entry e : byCost) {
                    if (sizeBytes - freeable + bytes <= cap) {
                        break;
                    }
                    if (e.costPerByte >= perByte) {
                        return false; // what is left is worth more per byte than the newcomer
                    }
                    victims.add(e);
                    freeable += e.size;
                }
                if (sizeBytes - freeable + bytes > cap) {
                    return false;
                }
                for (Entry v : victims) {
                    evictLocked(v, evicted);
                }
                return true;
            default:
                throw new IllegalStateException(policy.toString());
        }
    }

    private void evictLocked(Entry e, List<Entry> evicted) {
        if (map.remove(e.key, e)) {
            e.markDead(); // leaves the cache and stops leasing at once; freed and told after the lock
            unlink(e);
            byCost.remove(e);
            sizeBytes -= e.size;
            evictions.increment();
            tick++;
            evicted.add(e);
        }
    }

    private void link(Entry e) {
        e.listedAt = tick;
        e.touched = tick;
        e.prev = head.prev;
        e.next = head;
        head.prev.next = e;
        head.prev = e;
    }

    private static void unlink(Entry e) {
        if (e.prev != null) {
            e.prev.next = e.next;
            e.next.prev = e.prev;
            e.prev = null;
            e.next = null;
        }
    }

    /** Lets go of evicted entries and tells their holders, outside the lock. */
    private void notifyEvicted(List<Entry> evicted) {
        for (Entry e : evicted) {
            e.kill();
            if (e.listener != null) {
                try {
                    e.listener.evicted(e.key);
                } catch (RuntimeException ex) {
                    LOG.warn("eviction listener of {} failed", e.key, ex);
                }
            }
        }
    }

    @Override
    public boolean removeIfExist(CacheKey key) {
        List<Entry> evicted = new ArrayList<>(1);
        synchronized (lock) {
            Entry e = map.get(key);
            if (e != null) {
                evictLocked(e, evicted);
            }
        }
        notifyEvicted(evicted);
        return !evicted.isEmpty();
    }

    @Override
    public int removeBackend(String backendId) {
        List<Entry> evicted = new ArrayList<>();
        synchronized (lock) {
            for (Entry e : List.copyOf(map.values())) {
                if (e.key.backendId().equals(backendId)) {
                    evictLocked(e, evicted);
                }
            }
        }
        notifyEvicted(evicted);
        return evicted.size();
    }

    @Override
    public long sizeBytes(String backendId) {
        long bytes = 0;
        synchronized (lock) {
            for (Entry e : map.values()) {
                if (e.key.backendId().equals(backendId)) {
                    bytes += e.size;
                }
            }
        }
        return bytes;
    }

    /** Removes everything (settings change, bundle stop). */
    int flush() {
        List<Entry> evicted = new ArrayList<>();
        synchronized (lock) {
            flushLocked(evicted);
        }
        notifyEvicted(evicted);
        return evicted.size();
    }

    private void flushLocked(List<Entry> evicted) {
        for (Entry e : List.copyOf(map.values())) {
            evictLocked(e, evicted);
        }
    }

    /**
     * Applies a capacity: the first setting, or a lower one, flushes the cache (before the new
     * capacity shows, so size never exceeds it); a higher one does not.
     */
    void setCapacity(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, got " + bytes);
        }
        List<Entry> evicted = new ArrayList<>();
        synchronized (lock) {
            if (!capacitySet || bytes < capacity) {
                flushLocked(evicted);
            }
            capacitySet = true;
            capacity = bytes;
        }
        notifyEvicted(evicted);
    }

    boolean isCapacitySet() {
        synchronized (lock) {
            return capacitySet;
        }
    }

    void setPolicy(CachePolicy p) {
        synchronized (lock) {
            policy = p;
        }
    }

    @Override
    public CacheStats stats() {
        synchronized (lock) {
            return new CacheStats(device, policy, capacity, sizeBytes, map.size(), hits.sum(), misses.sum(),
                    uncached.sum(), evictions.sum());
        }
    }

    @Override
    public String toString() {
        return "ConstantTensorCache[" + stats().describe() + "]";
    }
}
