package io.partita.backend.acl.internal;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.partita.backend.acl.internal.memory.PoolHandle;
import io.partita.backend.acl.internal.ops.Run;
import io.partita.cache.CacheKey;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Lease;
import io.partita.cache.SourceMemory;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.spi.CompileRequest;
import io.partita.spi.Kernel;

/**
 * A compiled ACL-style partition: the cached primitive plus where its operator's inputs sit among
 * the partition's ports. Packed constant weights are kept in the unified constant cache under
 * backend id {@code acl}, keyed by this kernel, the input, and the identity of the weights' memory.
 */
final class AclKernel implements Kernel {
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final java.util.function.Supplier<AclPrimitive> recreate;
    /** Replaced by a fresh one from the primitive cache once evicted, so pools are reused again. */
    private volatile AclPrimitive primitive;
    /** Partition input index of each operator input. */
    private final int[] port;
    private final boolean[] constant;
    private final int outputPort;
    private final ConstantTensorCache cache;
    /** Entries this kernel added, dropped once the memory they were packed from is gone. */
    private final Set<CacheKey> added = ConcurrentHashMap.newKeySet();

    /** The acl backend's constant cache key. */
    record PackedKey(long kernel, int input, String form, LogicalTensor tensor, SourceMemory source) {
    }

    AclKernel(java.util.function.Supplier<AclPrimitive> primitives, CompileRequest request, Op main, long outputId,
            ConstantTensorCache cache) {
        this.recreate = primitives;
        this.primitive = primitives.get();
        this.cache = cache;
        List<LogicalTensor> ins = request.inputs();
        port = new int[main.inputs().size()];
        constant = new boolean[port.length];
        for (int i = 0; i < port.length; i++) {
            long tid = main.input(i).id();
            port[i] = -1;
            for (int j = 0; j < ins.size(); j++) {
                if (ins.get(j).id() == tid) {
                    port[i] = j;
                    constant[i] = ins.get(j).isConstant();
                }
            }
            if (port[i] < 0) {
                throw new IllegalStateException("acl partition " + request.partitionId() + ": input " + tid + " of op "
                        + main.describe() + " is not a partition input");
            }
        }
        int out = -1;
        for (int j = 0; j < request.outputs().size(); j++) {
            if (request.outputs().get(j).id() == outputId) {
                out = j;
            }
        }
        if (out < 0) {
            throw new IllegalStateException("acl partition " + request.partitionId() + ": tensor " + outputId
                    + " is not its output");
        }
        outputPort = out;
    }

    @Override
    public void execute(Stream stream, List<Tensor> in, List<Tensor> out) {
        AclPrimitive p = primitive;
        if (p.isClosed()) {
            p = recreate.get();
            primitive = p;
        }
        AclPrimitive run = p;
        run.execute(pool -> run.operator().run(new Run() {
            @Override
            public MemorySegment input(int i) {
                return in.get(port[i]).data();
            }

            @Override
            public MemorySegment output(int i) {
                return out.get(outputPort).data();
            }

            @Override
            public PoolHandle pool() {
                return pool;
            }

            @Override
            public Lease constant(int input, String form, long bytes, Consumer<MemorySegment> packer) {
                return packed(in, input, form, bytes, packer);
            }
        }));
    }

    private Lease packed(List<Tensor> in, int input, String form, long bytes, Consumer<MemorySegment> packer) {
        if (!constant[input]) {
            return null;
        }
        Tensor t = in.get(port[input]);
        CacheKey key = new CacheKey(AclBackend.ID, new PackedKey(id, input, form, t.logicalTensor(), SourceMemory.of(t.data())));
        // Repacking costs about one read and one write of the packed bytes.
        return cache.getOrAdd(key, bytes, 2 * bytes, () -> {
            forgetDeadSources();
            added.add(key);
            ConstantBuffer b = ConstantBuffer.allocateHost(bytes);
            packer.accept(b.segment());
            return b;
        }, null);
    }

    private void forgetDeadSources() {
        for (CacheKey k : added) {
            if (!((PackedKey) k.backendKey()).source().isAlive()) {
                cache.removeIfExist(k);
                added.remove(k);
            }
        }
    }

    /** Drops the packed weights this kernel put into the constant cache (leases in use stay valid). */
    @Override
    public void close() {
        for (CacheKey k : added) {
            cache.removeIfExist(k);
        }
        added.clear();
    }

    @Override
    public String toString() {
        return "acl kernel " + id + ": " + primitive;
    }
}
