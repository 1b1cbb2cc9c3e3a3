package io.partita.backend.dnnl.internal;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.cache.BufferProducer;
import io.partita.cache.CacheKey;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.Lease;
import io.partita.cache.SourceMemory;
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
     * The backend key of a processed constant: the kernel, the inputs it was made from with their
     * descriptions and memory (other weights or BatchNorm parameters give another entry), the form.
     */
    record ConstantKey(long kernel, List<Integer> inputs, String form, List<LogicalTensor> tensors,
            List<SourceMemory> data) {
        boolean alive() {
            for (SourceMemory m : data) {
                if (!m.isAlive()) {
                    return false;
                }
            }
            return true;
        }
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

    /**
     * Bound once for a memoized plan: which threads may touch the memory and the invocation (with
     * its constant lookup) do not change while the tensors stay the same, so a replay only runs the
     * primitive.
     */
    @Override
    public Call prepare(List<Tensor> in, List<Tensor> out) {
        if (relay != null) {
            return Kernel.super.prepare(in, out);
        }
        List<Tensor> ins = List.copyOf(in);
        CpuTeam pool = Kernel.sharedAcrossThreads(ins, out) ? backend.pool(engineIndex) : null;
        Invocation inv = new Invocation(ins, List.copyOf(out), pool,
                (input, form, bytes, producer) -> constant(ins, input, form, bytes, producer));
        return stream -> {
            Warmup.yieldToWork();
            primitive.execute(inv);
        };
    }

    @Override
    public void execute(Stream stream, List<Tensor> in, List<Tensor> out) {
        Warmup.yieldToWork();
        CpuTeam pool = Kernel.sharedAcrossThreads(in, out) ? backend.pool(engineIndex) : null;
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

    private Lease constant(List<Tensor> in, int[] sources, String form, long bytes, BufferProducer producer) {
        Integer[] ids = new Integer[sources.length];
        LogicalTensor[] lts = new LogicalTensor[sources.length];
        SourceMemory[] mem = new SourceMemory[sources.length];
        for (int i = 0; i < sources.length; i++) {
            int input = sources[i];
            if (inputs.get(input).property() != PropertyType.CONSTANT) {
                return null;
            }
            Tensor t = in.get(input);
            ids[i] = input;
            lts[i] = t.logicalTensor();
            mem[i] = SourceMemory.of(t.data());
        }
        CacheKey key = new CacheKey(DnnlBackend.ID, new ConstantKey(id, List.of(ids), form, List.of(lts),
                List.of(mem)));
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
            if (!((ConstantKey) k.backendKey()).alive()) {
                cache.removeIfExist(k);
                added.remove(k);
            }
        }
    }

    @Override
    public String toString() {
        return "dnnl kernel " + id + ": " + primitive;
    }
}
