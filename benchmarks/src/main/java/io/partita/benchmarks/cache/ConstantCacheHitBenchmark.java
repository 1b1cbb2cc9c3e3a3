package io.partita.benchmarks.cache;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

import io.partita.cache.CacheKey;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.Lease;
import io.partita.cache.internal.CacheManagerImpl;

/**
 * The hit path of the constant tensor cache against the anchor, a {@link ConcurrentHashMap#get}
 * with the same keys. {@code hit} is a full lookup: getOrAdd on a cached tensor, use of its
 * segment, closing the lease. {@code handle} is the seed's recommended fast path: a backend keeps
 * a long-lived lease and takes a per-execution lease from it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ConstantCacheHitBenchmark {
    /** A backend key of the kind the DNNL backend uses: partition, tensor, layout and data handle. */
    record WeightKey(long partition, long tensor, long layout, long dataAddress) {
    }

    private static final int KEYS = 64;

    private final CacheKey[] keys = new CacheKey[KEYS];
    private final ConcurrentHashMap<CacheKey, Object> map = new ConcurrentHashMap<>();
    private ConstantTensorCache cache;
    private Lease[] handles;

    @Setup(Level.Trial)
    public void setUp() {
        cache = new CacheManagerImpl(java.util.Map.of()).constantTensorCache(Device.CPU);
        handles = new Lease[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = new CacheKey("dnnl", new WeightKey(i, 1000 + i, 7, 0x7f00_0000_0000L + i * 4096L));
            handles[i] = cache.getOrAdd(keys[i], 4096, () -> ConstantBuffer.allocateHost(4096));
            map.put(keys[i], handles[i].buffer());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (Lease l : handles) {
            l.close();
        }
    }

    /** Each thread walks the keys from its own start. */
    @State(Scope.Thread)
    public static class Cursor {
        int next = (int) (Thread.currentThread().threadId() * 17);

        int advance() {
            next = (next + 1) & (KEYS - 1);
            return next;
        }
    }

    @Benchmark
    public Object baselineMapGet(Cursor c) {
        return map.get(keys[c.advance()]);
    }

    @Benchmark
    public void hit(Cursor c, Blackhole bh) {
        try (Lease l = cache.getOrAdd(keys[c.advance()], 4096, () -> {
            throw new IllegalStateException("every key is cached");
        })) {
            bh.consume(l.segment());
        }
    }

    @Benchmark
    public void handle(Cursor c, Blackhole bh) {
        try (Lease l = handles[c.advance()].retain()) {
            bh.consume(l.segment());
        }
    }
}
