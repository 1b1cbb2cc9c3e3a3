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
 */
final class LruKernelCache<K, V> implements KernelCache<K, V> {
    private static final Logger LOG = LoggerFactory.getLogger(LruKernelCache.class);

    private final String name;
    private final ConcurrentHashMap<K, Node<K, V>> map = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private final Node<K, V> head = new Node<>(null);
    private volatile long tick;
    private volatile int capacity;
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
        Node<K, V> prev;
        Node<K, V> next;
        long listedAt;
        volatile long touched;

        Node(K key) {
            this.key = key;
        }

        V await(String cacheName) {
            boolean interrupted = false;
            while (done.getCount() != 0) {
                try {
                    done.await();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
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
        List<Node<K, V>> evicted = new ArrayList<>();
        synchronized (lock) {
            n = map.get(key);
            if (n == null) {
                misses.increment();
                if (capacity > 0) {
                    mine = new Node<>(key);
                    map.put(key, mine);
                    link(mine);
                    tick++;
                    evictExcess(evicted);
                }
            } else {
                hits.increment();
            }
        }
        notifyEvicted(evicted);
        if (n != null) {
            return n.await(name);
        }
        if (mine == null) {
            return create(key, factory); // capacity 0: nothing is cached
        }
        try {
            V v = create(key, factory);
            mine.value = v;
            return v;
        } catch (RuntimeException | Error t) {
            mine.failure = t;
            synchronized (lock) {
                if (map.remove(key, mine)) {
                    unlink(mine);
                }
            }
            throw t;
        } finally {
            mine.done.countDown();
        }
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
        synchronized (lock) {
            Node<K, V> n = map.get(key);
            if (n != null) {
                removeLocked(n, removed);
            }
        }
        notifyEvicted(removed);
        return !removed.isEmpty();
    }

    @Override
    public int removeIf(Predicate<? super K> filter) {
        List<Node<K, V>> removed = new ArrayList<>();
        synchronized (lock) {
            for (Node<K, V> n : List.copyOf(map.values())) {
                if (filter.test(n.key)) {
                    removeLocked(n, removed);
                }
            }
        }
        notifyEvicted(removed);
        return removed.size();
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
            capacity = entries;
            evictExcess(evicted);
        }
        notifyEvicted(evicted);
    }

    /** Evicts least recently used entries until the size fits the capacity. Holds the lock. */
    private void evictExcess(List<Node<K, V>> evicted) {
        while (map.size() > capacity && head.next != head) {
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

    private void removeLocked(Node<K, V> n, List<Node<K, V>> out) {
        if (map.remove(n.key, n)) {
            unlink(n);
            tick++;
            out.add(n);
        }
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
                continue; // still being created (its creator keeps it) or failed
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
        return map.size();
    }

    @Override
    public KernelCacheStats stats() {
        synchronized (lock) {
            return new KernelCacheStats(name, capacity, map.size(), hits.sum(), misses.sum(), evictions.sum());
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
        }
        notifyEvicted(removed);
    }

    @Override
    public String toString() {
        return "KernelCache[" + stats().describe() + "]";
    }
}
