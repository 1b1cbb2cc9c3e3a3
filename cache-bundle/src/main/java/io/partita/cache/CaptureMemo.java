package io.partita.cache;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A small LRU of recordings per capture set, for a compiled object that replays the same work
 * (kernel launches, an execution plan) while its callers pass the same memory, scalars and shapes.
 *
 * <p>A capture set names memory by identity (the segment's scope or heap array, weakly referenced,
 * plus address and size) and scalars and shapes by value. The memo never keeps captured memory
 * alive: once a captured scope or array is garbage collected (noticed by a {@link Cleaner} thread),
 * the entry leaves the memo and its recording is released; an entry whose captured arena was closed
 * is dropped by the next lookup. Eviction (least recently used first) releases
 * too. Releasing happens outside the memo's lock, once, and never while a caller uses the entry: an
 * entry in use is handed to no other caller (a second caller with the same capture set records an
 * entry of its own) and is released when its user returns it.
 *
 * @param <V> what one recording holds
 */
public final class CaptureMemo<V> {

    private static volatile boolean enabled = !"false".equalsIgnoreCase(System.getProperty("partita.memo", "true"));

    /**
     * Whether compiled objects replay their memoized recordings: system property {@code partita.memo}
     * (default true) at start-up, then {@link #setEnabled}. Compiled objects read it on every call.
     */
    public static boolean enabled() {
        return enabled;
    }

    /** Turns memoization on or off process-wide, from the next call on (benchmarks compare both). */
    public static void setEnabled(boolean on) {
        enabled = on;
    }

    private static final int DEFAULT_CAPACITY = capacityProperty(System.getProperty("partita.memo.entries"));

    /** Entries per compiled object (system property {@code partita.memo.entries}, default 4, 1 to 64). */
    public static int defaultCapacity() {
        return DEFAULT_CAPACITY;
    }

    /** The property's value, or 4 with a warning naming it when it is not an integer from 1 to 64. */
    static int capacityProperty(String value) {
        if (value == null) {
            return 4;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= 64) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        System.getLogger(CaptureMemo.class.getName()).log(System.Logger.Level.WARNING,
                "system property partita.memo.entries=''{0}'' is not an integer from 1 to 64; using 4", value);
        return 4;
    }

    /** A probe: the capture set of one call, holding its memory strongly while the call lasts. */
    public static final class Capture {
        private Object[] targets = new Object[8];
        private int nTargets;
        private long[] values = new long[256]; // a tensor takes about 18: no regrowth per call up to 14
        private int nValues;

        /** Captures memory by identity: its scope (or heap array), address and size. */
        public Capture memory(MemorySegment s) {
            Object base = s.heapBase().orElse(null);
            target(base != null ? base : s.scope());
            value(s.address()); // heap: the offset within the array
            return value(s.byteSize());
        }

        /** Captures an object by identity (weakly, once recorded). */
        public Capture target(Object o) {
            if (nTargets == targets.length) {
                targets = Arrays.copyOf(targets, nTargets * 2);
            }
            targets[nTargets++] = Objects.requireNonNull(o, "target");
            return this;
        }

        /** Captures a scalar or a dimension by value. */
        public Capture value(long v) {
            if (nValues == values.length) {
                values = Arrays.copyOf(values, nValues * 2);
            }
            values[nValues++] = v;
            return this;
        }

        /**
         * Forgets what was captured, dropping the references to captured memory, so that a caller
         * can reuse the capture (and its grown arrays) for its next call instead of allocating one.
         */
        public Capture clear() {
            Arrays.fill(targets, 0, nTargets, null);
            nTargets = 0;
            nValues = 0;
            return this;
        }

        public Capture values(long[] vs) {
            value(vs.length);
            for (long v : vs) {
                value(v);
            }
            return this;
        }

        int hash() {
            int h = 1;
            for (int i = 0; i < nTargets; i++) {
                h = h * 31 + System.identityHashCode(targets[i]);
            }
            for (int i = 0; i < nValues; i++) {
                h = h * 31 + Long.hashCode(values[i]);
            }
            return h;
        }
    }

    /** A recording in use by one caller; closing returns it to the memo (or releases it if it has gone). */
    public static final class Entry<V> implements AutoCloseable {
        private final CaptureMemo<V> memo;
        private final V value;
        private final WeakReference<?>[] refs;
        private final Cleaner.Cleanable[] cleanables;
        private final long[] values;
        private final int hash;
        /** Whether the current user recorded it; set on each acquisition (one user at a time). */
        private boolean fresh;
        private final AtomicBoolean busy = new AtomicBoolean(true);
        private final AtomicBoolean released = new AtomicBoolean();
        private volatile boolean retired;

        private Entry(CaptureMemo<V> memo, Capture c, V value, boolean fresh) {
            this.memo = memo;
            this.value = value;
            this.fresh = fresh;
            this.hash = c.hash();
            this.values = Arrays.copyOf(c.values, c.nValues);
            this.refs = new WeakReference<?>[c.nTargets];
            this.cleanables = new Cleaner.Cleanable[c.nTargets];
            for (int i = 0; i < refs.length; i++) {
                refs[i] = new WeakReference<>(c.targets[i]);
            }
        }

        /** An entry that is never kept (the memo is disabled, or failed to record): released on close. */
        private Entry(CaptureMemo<V> memo, V value) {
            this.memo = memo;
            this.value = value;
            this.fresh = true;
            this.hash = 0;
            this.values = new long[0];
            this.refs = new WeakReference<?>[0];
            this.cleanables = new Cleaner.Cleanable[0];
            this.retired = true;
        }

        public V value() {
            return value;
        }

        /** True when this call recorded the entry (a miss), false on a replay. */
        public boolean recorded() {
            return fresh;
        }

        boolean matches(Capture c, int h) {
            if (h != hash || c.nTargets != refs.length || c.nValues != values.length) {
                return false;
            }
            for (int i = 0; i < refs.length; i++) {
                if (refs[i].get() != c.targets[i]) {
                    return false;
                }
            }
            for (int i = 0; i < values.length; i++) {
                if (values[i] != c.values[i]) {
                    return false;
                }
            }
            return true;
        }

        /** False once a captured object is gone or a captured arena closed: it can never match again. */
        boolean live() {
            for (WeakReference<?> r : refs) {
                Object o = r.get();
                if (o == null || (o instanceof MemorySegment.Scope s && !s.isAlive())) {
                    return false;
                }
            }
            return true;
        }

        /** Marks the entry gone from the memo; releases it now unless a caller is using it. */
        void retire() {
            retired = true;
            for (int i = 0; i < refs.length; i++) {
                refs[i].clear();
                if (cleanables[i] != null) {
                    cleanables[i].clean(); // deregisters (its action finds the entry gone already)
                }
            }
            if (busy.compareAndSet(false, true)) {
                release();
            }
        }

        private void release() {
            if (released.compareAndSet(false, true)) {
                memo.released.increment();
                memo.release.accept(value);
            }
        }

        @Override
        public void close() {
            busy.set(false);
            if (retired && busy.compareAndSet(false, true)) {
                release();
            }
        }
    }

    /** Notices captured objects becoming unreachable and drops their entries (its own daemon thread). */
    private static final Cleaner CLEANER = Cleaner.create();

    /** The action run when a captured object has gone: holds the entry, never the object. */
    private static final class Drop implements Runnable {
        private final CaptureMemo<?> memo;
        private final Entry<?> entry;

        Drop(CaptureMemo<?> memo, Entry<?> entry) {
            this.memo = memo;
            this.entry = entry;
        }

        @Override
        public void run() {
            memo.drop(entry);
        }
    }

    private final int capacity;
    private final Consumer<? super V> release;
    /** Most recently used last. */
    private final List<Entry<V>> entries = new ArrayList<>();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder released = new LongAdder();
    private boolean closed;

    /**
     * @param capacity entries kept (the least recently used is evicted beyond it)
     * @param release  frees one recording (called once per recording, outside the memo's lock)
     */
    public CaptureMemo(int capacity, Consumer<? super V> release) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " < 1");
        }
        this.capacity = capacity;
        this.release = Objects.requireNonNull(release, "release");
    }

    /**
     * The entry recorded for this capture set and not in use, or a new one from {@code record} (kept,
     * evicting the least recently used beyond capacity). Close the entry when the call is done.
     */
    public Entry<V> acquire(Capture c, Supplier<? extends V> record) {
        List<Entry<V>> gone = null;
        int h = c.hash();
        Entry<V> hit = null;
        synchronized (entries) {
            if (!closed) {
                for (int i = entries.size() - 1; i >= 0; i--) {
                    Entry<V> e = entries.get(i);
                    if (!e.live()) { // a captured arena closed: the entry can never be replayed
                        entries.remove(i);
                        gone = add(gone, e);
                        continue;
                    }
                    if (hit == null && e.matches(c, h) && e.busy.compareAndSet(false, true)) {
                        e.fresh = false;
                        hit = e;
                    }
                }
                if (hit != null) { // most recently used last
                    entries.remove(hit);
                    entries.add(hit);
                }
            }
        }
        retireAll(gone);
        if (hit != null) {
            hits.increment();
            return hit;
        }
        misses.increment();
        V v = record.get();
        Entry<V> e = new Entry<>(this, c, v, true);
        gone = null;
        boolean kept = false;
        synchronized (entries) {
            if (!closed) {
                entries.add(e);
                kept = true;
                for (int i = 0; i < e.refs.length; i++) {
                    e.cleanables[i] = CLEANER.register(c.targets[i], new Drop(this, e));
                }
                while (entries.size() > capacity) {
                    gone = add(gone, entries.remove(0));
                }
            }
        }
        if (!kept) {
            e.retired = true;
        }
        retireAll(gone);
        return e;
    }

    /** An entry outside the memo (a disabled memo): the recording is released when the entry closes. */
    public Entry<V> once(V value) {
        return new Entry<>(this, value);
    }

    /** Entries kept now, after dropping those whose captured memory has gone. */
    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    /** Replays. */
    public long hits() {
        return hits.sum();
    }

    /** Recordings made. */
    public long misses() {
        return misses.sum();
    }

    /** Recordings released (evicted, collected, closed). */
    public long releasedCount() {
        return released.sum();
    }

    /** Releases every entry (those in use when their caller returns them); later recordings are not kept. */
    public void close() {
        List<Entry<V>> all;
        synchronized (entries) {
            closed = true;
            all = new ArrayList<>(entries);
            entries.clear();
        }
        retireAll(all);
    }

    /** Removes an entry whose captured object has gone, and releases it (once its user returns it). */
    private void drop(Entry<?> e) {
        boolean removed;
        synchronized (entries) {
            removed = entries.remove(e);
        }
        if (removed) {
            e.retire();
        }
    }

    private static <V> List<Entry<V>> add(List<Entry<V>> list, Entry<V> e) {
        if (list == null) {
            list = new ArrayList<>(2);
        }
        list.add(e);
        return list;
    }

    private static <V> void retireAll(List<Entry<V>> gone) {
        if (gone != null) {
            gone.forEach(Entry::retire);
        }
    }
}
