package io.partita.cache.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.KernelCache;
import io.partita.cache.KernelCacheStats;
import io.partita.cache.KernelCreationException;

/**
 * LRU kernel cache: lock-free hits (map lookup and an LRU mark written only when it changes),
 * insertions and evictions under one lock in O(1) amortized (lazy promotion, as in the constant
 * tensor cache), factories and listeners outside the lock.
 *
 * <p>A key being created has a pending node in the map (so its askers wait for the one factory) but
 * is neither in the LRU list nor counted in the size: only created values are, so eviction never
 * takes a node whose factory runs. Evicting one would orphan its value (never reported to the
 * listeners) and let a second factory start for the key. A key removed while being created is
 * marked; its value goes to its askers and straight to the listeners, and is not cached.
 */
final class LruKernelCache<K, V> implements KernelCache<K, V> {
    private static final Logger LOG = LoggerFactory.getLogger(LruKernelCache.class);

    private final String name;
    private final ConcurrentHashMap<K, Node<K, V>> map = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private final Node<K, V> head = new Node<>(null, null);
    private volatile long tick;
    private volatile int capacity;
    /** Created values in the LRU list. Guarded by lock. */
    private int count;
    /**
     * count as published for {@link #size()}: written once per locked operation, and when the
     * capacity is lowered before the capacity, so an unlocked reader never sees it above capacity.
     */
    private volatile int size;
    private final List<KernelEvictionListener<? super K, ? super V>> listeners = new CopyOnWriteArrayList<>();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder evictions = new LongAdder();

    /** A cached value or one being created. */
    private static final class Node<K, V> {
        final K key;
        final CountDownLatch done = new CountDownLatch(1);
        volatile V value;
        volatile Throwable failure;
        /** The thread running the factory, until it is done: the one asker that must not wait. */
        volatile Thread producer;
        /** Removed while its factory ran: the value is reported, not cached. Guarded by lock. */
        boolean discarded;
        /** In the LRU list (a created value) when prev != null. Guarded by lock. */
        Node<K, V> prev;
        Node<K, V> next;
        long listedAt;
        volatile long touched;

        Node(K key, Thread producer) {
            this.key = key;
            this.producer = producer;
        }

        V await(String cacheName) {
            if (done.getCount() != 0) {
                Thread p = producer;
                if (p == Thread.currentThread()) {
                    // Waiting for ourselves would never end.
                    throw new KernelCreationException(cacheName + ": re-entrant request for " + key
                            + ": its own factory (on thread " + p.getName() + ") asked for it", null);
                }
                try {
                    done.await();
                } catch (InterruptedException e) {
                    // A hung factory must not hold its waiters hostage; the factory itself goes on.
                    Thread.currentThread().interrupt();
                    throw new KernelCreationException(cacheName + ": interrupted while waiting for the value of " + key
                            + (p != null ? " (being created on thread " + p.getName() + ")" : ""), e);
                }
            }
            Throwable t = failure;
            if (t != null) {
                throw new KernelCreationException(cacheName + ": creating the value for " + key + " failed: " + t, t);
            }
            return value;
        }
    }

    LruKernelCache(String name, int capacity) {
        this.name = name;
        this.capacity = capacity;
        head.prev = head;
        head.next = head;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public V getOrCreate(K key, Function<? super K, ? extends V> factory) {
        Node<K, V> n = map.get(key);
        if (n != null) {
            hits.increment();
            touch(n);
            return n.await(name);
        }
        Node<K, V> mine = null;
        synchronized (lock) {
            n = map.get(key);
            if (n == null) {
                misses.increment();
                if (capacity > 0) {
                    mine = new Node<>(key, Thread.currentThread());
                    map.put(key, mine); // pending: listed and counted once created (see the class comment)
                }
            } else {
                hits.increment();
            }
        }
        if (n != null) {
            return n.await(name);
        }
        if (mine == null) {
            return create(key, factory); // capacity 0: nothing is cached
        }
        V v;
        try {
            v = create(key, factory);
        } catch (Throwable t) {
            mine.failure = t;
            synchronized (lock) {
                map.remove(key, mine); // before waking the waiters: a later asker retries, never sees this failure
            }
            mine.producer = null;
            mine.done.countDown();
            throw t;
        }
        List<Node<K, V>> evicted = new ArrayList<>();
        synchronized (lock) {
            mine.value = v;
            if (mine.discarded) {
                map.remove(key, mine); // removed while created: reported below, not cached
                evicted.add(mine);
            } else {
                link(mine);
                count++;
                tick++;
                evictExcess(capacity, evicted); // at capacity 0 (set meanwhile) this evicts mine: reported too
                size = count;
            }
        }
        mine.producer = null;
        mine.done.countDown();
        notifyEvicted(evicted);
        return v;
    }

    private V create(K key, Function<? super K, ? extends V> factory) {
        V v;
        try {
            v = factory.apply(key);
        } catch (KernelCreationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new KernelCreationException(name + ": creating the value for " + key + " failed: " + e, e);
        }
        if (v == null) {
            throw new KernelCreationException(name + ": the factory returned null for " + key, null);
        }
        return v;
    }

    private void touch(Node<K, V> n) {
        long t = tick;
        if (n.touched != t) {
            n.touched = t;
        }
    }

    @Override
    public V getIfPresent(K key) {
        Node<K, V> n = map.get(key);
        if (n == null || n.done.getCount() != 0 || n.failure != null) {
            misses.increment();
            return null;
        }
        hits.increment();
        touch(n);
        return n.value;
    }

    @Override
    public boolean remove(K key) {
        List<Node<K, V>> removed = new ArrayList<>(1);
        boolean found;
        synchronized (lock) {
            Node<K, V> n = map.get(key);
            found = n != null && removeLocked(n, removed);
            size = count;
        }
        notifyEvicted(removed);
        return found;
    }

    @Override
    public int removeIf(Predicate<? super K> filter) {
        List<Node<K, V>> removed = new ArrayList<>();
        int found = 0;
        synchronized (lock) {
            for (Node<K, V> n : List.copyOf(map.values())) {
                if (filter.test(n.key) && removeLocked(n, removed)) {
                    found++;
                }
            }
            size = count;
        }
        notifyEvicted(removed);
        return found;
    }

    @Override
    public List<K> keys() {
        List<K> keys = new ArrayList<>();
        synchronized (lock) {
            for (Node<K, V> n = head.next; n != head; n = n.next) {
                keys.add(n.key);
            }
        }
        return keys;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public void setCapacity(int entries) {
        if (entries < 0) {
            throw new IllegalArgumentException(name + ": capacity must be >= 0 entries, got " + entries);
        }
        List<Node<K, V>> evicted = new ArrayList<>();
        synchronized (lock) {
            evictExcess(entries, evicted); // first, so that size() is never seen above the capacity
            size = count;
            capacity = entries;
        }
        notifyEvicted(evicted);
    }

    /** Evicts least recently used values until they fit the capacity. Holds the lock. */
    private void evictExcess(int cap, List<Node<K, V>> evicted) {
        while (count > cap && head.next != head) {
            Node<K, V> oldest = head.next;
            if (oldest.touched > oldest.listedAt) {
                unlink(oldest);
                link(oldest);
                continue;
            }
            removeLocked(oldest, evicted);
            evictions.increment();
        }
    }

    /** Removes a created value (to report) or marks a pending one (its creator reports it). Holds the lock. */
    private boolean removeLocked(Node<K, V> n, List<Node<K, V>> out) {
        if (n.prev == null) {
            // Being created (or failed and leaving): stays mapped so no second factory starts for the key.
            boolean pending = n.failure == null && !n.discarded;
            n.discarded = true;
            return pending;
        }
        if (map.remove(n.key, n)) {
            unlink(n);
            count--;
            tick++;
            out.add(n);
            return true;
        }
        return false;
    }

    private void link(Node<K, V> n) {
        n.listedAt = tick;
        n.touched = tick;
        n.prev = head.prev;
        n.next = head;
        head.prev.next = n;
        head.prev = n;
    }

    private void unlink(Node<K, V> n) {
        if (n.prev != null) {
            n.prev.next = n.next;
            n.next.prev = n.prev;
            n.prev = null;
            n.next = null;
        }
    }

    private void notifyEvicted(List<Node<K, V>> nodes) {
        if (listeners.isEmpty()) {
            return;
        }
        for (Node<K, V> n : nodes) {
            V v = n.value;
            if (v == null) {
                continue; // defensive: only created values are listed or reported
            }
            for (KernelEvictionListener<? super K, ? super V> l : listeners) {
                try {
                    l.evicted(n.key, v);
                } catch (RuntimeException e) {
                    LOG.warn("{}: eviction listener failed for {}", name, n.key, e);
                }
            }
        }
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public KernelCacheStats stats() {
        synchronized (lock) {
            return new KernelCacheStats(name, capacity, count, hits.sum(), misses.sum(), evictions.sum());
        }
    }

    @Override
    public Registration addEvictionListener(KernelEvictionListener<? super K, ? super V> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Removes everything (bundle stop); listeners are told. */
    void clear() {
        List<Node<K, V>> removed = new ArrayList<>();
        synchronized (lock) {
            for (Node<K, V> n : List.copyOf(map.values())) {
                removeLocked(n, removed);
            }
            size = count;
        }
        notifyEvicted(removed);
    }

    @Override
    public String toString() {
        return "KernelCache[" + stats().describe() + "]";
    }
}
