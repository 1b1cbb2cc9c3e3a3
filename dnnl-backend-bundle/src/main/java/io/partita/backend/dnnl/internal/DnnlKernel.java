package io.partita.backend.dnnl.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.partita.backend.dnnl.internal.exec.WorkerPool;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.cache.BufferProducer;
import io.partita.cache.CacheKey;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.Lease;
import io.partita.graph.LogicalTensor;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.spi.CompileRequest;
import io.partita.spi.Kernel;

/**
 * A compiled partition of the DNNL-style backend: a primitive plus what one execution needs — the
 * engine's pool and the processed constant inputs, looked up in the unified constant tensor cache
 * under backend id {@code dnnl} and a key naming this kernel, the input's description and its
 * data handle (so one kernel used with other weights gets other cache entries).
 */
final class DnnlKernel implements Kernel {
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final DnnlBackend backend;
    private final Primitive primitive;
    private final List<LogicalTensor> inputs;
    private final int engineIndex;
    private final ConstantTensorCache cache;
    private final DenseOutputs relay; // null: every output is dense
    /** Keys this kernel put into the constant cache, to drop them once their memory is released. */
    private final java.util.Set<CacheKey> added = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Which memory a constant input lives in: a native address, or a heap array compared by
     * identity, and the memory's scope (its arena). Freed memory is often handed out again at the
     * same address; the scope tells a new arena's tensor from the old one's, so a new graph or run
     * does not pick up weights packed from memory that has since been released and reused.
     */
    record DataHandle(Object heapBase, long address, long byteSize, MemorySegment.Scope scope) {
        static DataHandle of(MemorySegment s) {
            return new DataHandle(s.heapBase().orElse(null), s.isNative() ? s.address() : 0, s.byteSize(), s.scope());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof DataHandle h && h.heapBase == heapBase && h.address == address && h.byteSize == byteSize
                    && h.scope == scope;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(address) * 31 + System.identityHashCode(heapBase) + Long.hashCode(byteSize)
                    + 17 * System.identityHashCode(scope);
        }
    }

    /** The backend key of a processed constant. */
    record ConstantKey(long kernel, int input, String form, LogicalTensor tensor, DataHandle data) {
    }

    DnnlKernel(DnnlBackend backend, Primitive primitive, CompileRequest request, DenseOutputs relay) {
        this.relay = relay;
        this.backend = backend;
        this.primitive = primitive;
        this.inputs = request.inputs();
        this.engineIndex = request.engine().index();
        this.cache = backend.caches().constantTensorCache(Device.of(request.engine().kind().spelling(),
                request.engine().index()));
    }

    @Override
    public void execute(Stream stream, List<Tensor> in, List<Tensor> out) {
        WorkerPool pool = sharedAcrossThreads(in, out) ? backend.pool(engineIndex) : null;
        if (relay == null) {
            primitive.execute(new Invocation(in, out, pool, (input, form, bytes, producer) -> constant(in, input,
                    form, bytes, producer)));
            return;
        }
        try (Arena arena = Arena.ofShared()) {
            List<Tensor> scratch = relay.scratch(out, arena);
            primitive.execute(new Invocation(in, scratch, pool, (input, form, bytes, producer) -> constant(in, input,
                    form, bytes, producer)));
            relay.copyBack(scratch, out, pool);
        }
    }

    private Lease constant(List<Tensor> in, int input, String form, long bytes, BufferProducer producer) {
        if (inputs.get(input).property() != PropertyType.CONSTANT) {
            return null;
        }
        Tensor t = in.get(input);
        CacheKey key = new CacheKey(DnnlBackend.ID, new ConstantKey(id, input, form, t.logicalTensor(),
                DataHandle.of(t.data())));
        // Recomputing a packed tensor costs about a read and a write of it.
        return cache.getOrAdd(key, bytes, 2 * bytes, () -> {
            // a miss: entries packed from memory whose arena has closed can never be hit again
            dropReleased();
            added.add(key);
            return producer.produce();
        }, null);
    }

    private void dropReleased() {
        for (CacheKey k : added) {
            if (!((ConstantKey) k.backendKey()).data().scope().isAlive()) {
                cache.removeIfExist(k);
                added.remove(k);
            }
        }
    }

    /** Tensors in a confined arena can only be touched by their owner: then the caller runs alone. */
    private static boolean sharedAcrossThreads(List<Tensor> in, List<Tensor> out) {
        for (Tensor t : in) {
            if (!accessibleByAll(t.data())) {
                return false;
            }
        }
        for (Tensor t : out) {
            if (!accessibleByAll(t.data())) {
                return false;
            }
        }
        return true;
    }

    private static boolean accessibleByAll(MemorySegment s) {
        return !s.isNative() || s.scope().isAlive() && s.isAccessibleBy(POOL_PROBE);
    }

    /** Any thread other than the owner of a confined arena. */
    private static final Thread POOL_PROBE = Thread.ofPlatform().unstarted(() -> { });

    @Override
    public String toString() {
        return "dnnl kernel " + id + ": " + primitive;
    }
}
