package io.partita.backend.compiler.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.partita.backend.compiler.internal.codegen.RowKernelGenerator;
import io.partita.backend.compiler.internal.exec.AttentionProgram;
import io.partita.backend.compiler.internal.exec.EltwiseProgram;
import io.partita.backend.compiler.internal.exec.MatMulChainProgram;
import io.partita.backend.compiler.internal.exec.MlpProgram;
import io.partita.backend.compiler.internal.exec.NormProgram;
import io.partita.backend.compiler.internal.exec.Parallel;
import io.partita.backend.compiler.internal.exec.Program;
import io.partita.backend.compiler.internal.exec.TransposedAttentionProgram;
import io.partita.backend.compiler.internal.fusion.AttentionShape;
import io.partita.backend.compiler.internal.fusion.EltwiseShape;
import io.partita.backend.compiler.internal.fusion.MatMulChainShape;
import io.partita.backend.compiler.internal.fusion.MlpShape;
import io.partita.backend.compiler.internal.fusion.NormShape;
import io.partita.backend.compiler.internal.fusion.OpIndex;
import io.partita.backend.compiler.internal.fusion.TransposedAttentionShape;
import io.partita.cache.CacheManager;
import io.partita.cache.Device;
import io.partita.graph.EngineKind;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.Backend;
import io.partita.spi.Claim;
import io.partita.spi.CompileRequest;
import io.partita.spi.CpuTeams;
import io.partita.spi.GraphView;
import io.partita.spi.Kernel;

/**
 * The graph-compiler backend: claims whole attention blocks (MatMul, scale, mask, SoftMax,
 * MatMul and the views around them; also JAX's transposed form, whose second MatMul contracts over
 * the SoftMax's rows) and gated MLPs (two up projections, their elementwise
 * combination, the down projection), static or with dynamic dims (and single-projection MLPs
 * with dynamic rows), LayerNorm/RMSNorm over the last axis with the elementwise ops before and
 * after it, MatMuls with the elementwise chains computing their src and finishing their output,
 * and elementwise chains with dynamic dims; it compiles each once into fused loops
 * whose elementwise parts are generated classes. Ranked above the
 * DNNL-style backend so its larger partitions win; what it does not claim goes to the others.
 */
public final class CompilerBackend implements Backend {
    public static final String ID = "compiler";
    /** Above the DNNL-style backend (100): a fused attention block beats its per-op partitions. */
    public static final int DEFAULT_RANK = 150;
    static final String VERSION = "1";
    static final String ATTENTION = "attention";
    static final String TRANSPOSED_ATTENTION = "transposed_attention";
    static final String GATED_MLP = "gated_mlp";
    static final String MLP = "mlp";
    static final String NORM = "norm";
    static final String ELTWISE = "eltwise";
    static final String MATMUL = "matmul";
    private static final int MAX_THREADS = 1024;

    private final RowKernelGenerator generator;
    /** Packed MLP weights live in the unified constant cache under this backend's id. */
    private final CacheManager caches;
    /** The team each engine's partitions last used (a cache of {@code teams.team(engine, threads)}). */
    private final java.util.Map<Integer, TeamOf> pools = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile CpuTeams teams;
    private volatile int threads = Math.clamp(Runtime.getRuntime().availableProcessors(), 1, MAX_THREADS);

    public CompilerBackend(CacheManager caches) {
        this.caches = java.util.Objects.requireNonNull(caches, "caches");
        this.generator = new RowKernelGenerator();
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public Set<EngineKind> engineKinds() {
        return Set.of(EngineKind.CPU);
    }

    @Override
    public int defaultRank() {
        return DEFAULT_RANK;
    }

    @Override
    public String description() {
        RowKernelGenerator.Stats s = generator.stats();
        return "generated " + s.generated() + " classes, loaded " + s.loaded() + " from cache blobs, "
                + s.bytes() + " bytes in " + s.nanos() / 1_000_000 + " ms"
                + (s.rejected() > 0 ? ", " + s.rejected() + " rejected by the JVM" : "");
    }

    @Override
    public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        if (policy != PartitionPolicy.FUSION || graph.engineKind() != EngineKind.CPU) {
            return List.of(); // DEBUG: one op per partition, nothing to fuse
        }
        List<Op> ops = graph.ops();
        OpIndex index = new OpIndex(ops);
        Set<Long> taken = new java.util.HashSet<>();
        List<Claim> claims = new ArrayList<>();
        for (Op op : ops) {
            if (op.kind() != OpKind.SoftMax) {
                continue;
            }
            java.util.function.Predicate<Op> free = o -> !graph.isClaimed(o.id()) && !taken.contains(o.id());
            AttentionShape a = AttentionShape.around(op, index, free, graph::isGraphOutput);
            if (a != null) {
                // Started once a graph has attention, as early as that is known: its vector code shares
                // JIT profiles with the DNNL-style kernels, and started with the backend, ResNet-50 ran
                // 75-83 ms against 66-72 ms.
                io.partita.backend.compiler.internal.exec.Warmup.startOnce();
                claims.add(claim(a.ops(), ATTENTION, taken));
                continue;
            }
            TransposedAttentionShape t = TransposedAttentionShape.around(op, index, free, graph::isGraphOutput);
            if (t != null && TransposedAttentionProgram.layout(t) != null) {
                claims.add(claim(t.ops(), TRANSPOSED_ATTENTION, taken));
            }
        }
        for (Op op : ops) {
            if (op.kind() != OpKind.MatMul || taken.contains(op.id())) {
                continue;
            }
            MlpShape m = MlpShape.ending(op, index, o -> !graph.isClaimed(o.id()) && !taken.contains(o.id()),
                    graph::isGraphOutput, false);
            // A single projection with an epilogue is the DNNL-style backend's pattern when static.
            if (m == null || !m.gated() && !m.up().get(0).input(0).hasDynamicDim()) {
                continue;
            }
            Set<Long> ids = new java.util.LinkedHashSet<>();
            for (Op x : m.ops()) {
                ids.add(x.id());
            }
            taken.addAll(ids);
            claims.add(new Claim(ids, m.gated() ? GATED_MLP : MLP));
        }
        for (Op op : ops) {
            if (op.kind() != OpKind.LayerNorm && op.kind() != OpKind.RMSNorm || taken.contains(op.id())) {
                continue;
            }
            NormShape n = NormShape.around(op, index, o -> !graph.isClaimed(o.id()) && !taken.contains(o.id()),
                    graph::isGraphOutput);
            // A static LayerNorm alone is the DNNL-style backend's single-op primitive: no gain here.
            if (n == null || n.layerNorm() && n.pre().isEmpty() && n.post().isEmpty() && !dynamic(n.ops())) {
                continue;
            }
            claims.add(claim(n.ops(), NORM, taken));
        }
        for (Op op : ops) {
            if (op.kind() != OpKind.MatMul || taken.contains(op.id())) {
                continue;
            }
            MatMulChainShape c = MatMulChainShape.around(op, index,
                    o -> !graph.isClaimed(o.id()) && !taken.contains(o.id()), graph::isGraphOutput);
            // a static MatMul with an epilogue alone is the DNNL-style backend's post-op chain
            if (c != null && (!c.prologue().isEmpty() || c.hasDynamicDim())) {
                claims.add(claim(c.ops(), MATMUL, taken));
            }
        }
        for (Op op : ops) {
            // a chain is dynamic through its dims, which every op of it has (cheap test before growing one)
            if (taken.contains(op.id()) || !dynamic(List.of(op))) {
                continue;
            }
            EltwiseShape e = EltwiseShape.from(op, index, o -> !graph.isClaimed(o.id()) && !taken.contains(o.id()),
                    graph::isGraphOutput);
            // static elementwise chains are the DNNL-style backend's post-op chains
            if (e != null && e.hasDynamicDim()) {
                claims.add(claim(e.ops(), ELTWISE, taken));
            }
        }
        return claims;
    }

    private static Claim claim(List<Op> ops, String pattern, Set<Long> taken) {
        Set<Long> ids = new java.util.LinkedHashSet<>();
        for (Op x : ops) {
            ids.add(x.id());
        }
        taken.addAll(ids);
        return new Claim(ids, pattern);
    }

    private static boolean dynamic(List<Op> ops) {
        for (Op op : ops) {
            for (var t : op.inputs()) {
                if (t.hasDynamicDim()) {
                    return true;
                }
            }
            for (var t : op.outputs()) {
                if (t.hasDynamicDim()) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public boolean givesCacheBlobs() {
        return true;
    }

    @Override
    public String cacheIdentity(io.partita.graph.Engine engine) {
        return RowKernelGenerator.identity();
    }

    /** Compiles, recording the generated classes the partition uses: its cache blobs. */
    @Override
    public Kernel compile(CompileRequest request) {
        try (RowKernelGenerator.Session s = generator.record()) {
            Program p = program(request);
            return new CompilerKernel(this, p, s.blobs(), request.engine().index());
        }
    }

    /**
     * Compiles with the classes taken from the blobs instead of generated (shape analysis, weight
     * packing and plans are redone: they are cheap next to generation and depend on constants).
     */
    @Override
    public Kernel compileFromBlobs(CompileRequest request, List<byte[]> blobs) {
        try (RowKernelGenerator.Session s = generator.replay(blobs)) {
            Program p = program(request);
            return new CompilerKernel(this, p, s.blobs(), request.engine().index());
        } catch (RowKernelGenerator.BlobRefusedException e) {
            throw new io.partita.graph.CacheBlobException(io.partita.graph.CacheBlobException.Reason.REFUSED,
                    "compiler backend, partition " + request.partitionId() + ": " + e.getMessage(), e);
        }
    }

    private Program program(CompileRequest request) {
        OpIndex index = new OpIndex(request.ops());
        Set<Long> outputs = new java.util.HashSet<>();
        request.outputs().forEach(t -> outputs.add(t.id()));
        if (GATED_MLP.equals(request.pattern()) || MLP.equals(request.pattern())) {
            Op last = request.ops().get(request.ops().size() - 1);
            MlpShape m = MlpShape.ending(last, index, o -> true, outputs::contains, false);
            if (m == null || m.ops().size() != request.ops().size()) {
                throw new UnsupportedFeatureException("partition " + request.partitionId()
                        + " is not an MLP the compiler backend fuses");
            }
            return new MlpProgram(ID, request, m, generator, caches.constantTensorCache(
                    Device.of(request.engine().kind().spelling(), request.engine().index())));
        }
        if (MATMUL.equals(request.pattern())) {
            MatMulChainShape shape = null;
            for (Op op : request.ops()) {
                if (op.kind() == OpKind.MatMul) {
                    shape = MatMulChainShape.around(op, index, o -> true, outputs::contains);
                }
            }
            if (shape == null || shape.ops().size() != request.ops().size()) {
                throw new UnsupportedFeatureException("partition " + request.partitionId()
                        + " is not a MatMul chain the compiler backend fuses");
            }
            return new MatMulChainProgram(ID, request, shape, generator,
                    caches.constantTensorCache(Device.of(request.engine().kind().spelling(), request.engine().index())));
        }
        if (NORM.equals(request.pattern())) {
            NormShape shape = null;
            for (Op op : request.ops()) {
                if (op.kind() == OpKind.LayerNorm || op.kind() == OpKind.RMSNorm) {
                    shape = NormShape.around(op, index, o -> true, outputs::contains);
                }
            }
            if (shape == null || shape.ops().size() != request.ops().size()) {
                throw new UnsupportedFeatureException("partition " + request.partitionId()
                        + " is not a normalisation the compiler backend fuses");
            }
            return new NormProgram(request, shape, generator);
        }
        if (ELTWISE.equals(request.pattern())) {
            EltwiseShape shape = request.ops().isEmpty() ? null
                    : EltwiseShape.from(request.ops().get(0), index, o -> true, outputs::contains);
            if (shape == null || shape.ops().size() != request.ops().size()) {
                throw new UnsupportedFeatureException("partition " + request.partitionId()
                        + " is not an elementwise chain the compiler backend fuses");
            }
            return new EltwiseProgram(request, shape, generator);
        }
        if (TRANSPOSED_ATTENTION.equals(request.pattern())) {
            TransposedAttentionShape shape = null;
            for (Op op : request.ops()) {
                if (op.kind() == OpKind.SoftMax) {
                    shape = TransposedAttentionShape.around(op, index, o -> true, outputs::contains);
                }
            }
            if (shape == null || shape.ops().size() != request.ops().size()) {
                throw new UnsupportedFeatureException("partition " + request.partitionId()
                        + " is not a transposed attention block the compiler backend fuses");
            }
            return new TransposedAttentionProgram(request, shape, generator);
        }
        if (!ATTENTION.equals(request.pattern())) {
            throw new UnsupportedFeatureException("compiler backend: no pattern '" + request.pattern() + "'");
        }
        AttentionShape shape = null;
        for (Op op : request.ops()) {
            if (op.kind() == OpKind.SoftMax) {
                shape = AttentionShape.around(op, index, o -> true, outputs::contains);
            }
        }
        if (shape == null || shape.ops().size() != request.ops().size()) {
            throw new UnsupportedFeatureException("partition " + request.partitionId()
                    + " is not an attention block the compiler backend fuses");
        }
        return new AttentionProgram(request, shape, generator);
    }

    @Override
    public void setThreads(int count) {
        if (count < 1 || count > MAX_THREADS) {
            throw new IllegalArgumentException("compiler thread count must be from 1 to " + MAX_THREADS + ", got "
                    + count);
        }
        threads = count;
    }

    /** The runtime's thread teams: fused loops run on the team of their engine. */
    @Override
    public void setCpuTeams(CpuTeams teams) {
        this.teams = teams;
        pools.clear();
    }

    /**
     * Where the loops of a partition on CPU engine {@code engineIndex} run: the runtime's team for
     * the thread setting, or the calling thread for a backend used without a runtime.
     */
    Parallel pool(int engineIndex) {
        int count = threads;
        CpuTeams t = teams;
        TeamOf p = pools.get(engineIndex);
        if (p != null && p.source() == t && p.threads() == count) {
            return p.parallel();
        }
        if (t == null) {
            return Parallel.CALLER;
        }
        Parallel parallel = new Parallel(t.team(engineIndex, count));
        pools.put(engineIndex, new TeamOf(t, count, parallel));
        return parallel;
    }

    /** A team and what it was asked for: a new runtime's teams or a new count replace it. */
    private record TeamOf(CpuTeams source, int threads, Parallel parallel) {
    }

    public RowKernelGenerator.Stats codegenStats() {
        return generator.stats();
    }

    @Override
    public void close() {
        pools.clear(); // the teams are the runtime's
        generator.clear();
        io.partita.backend.compiler.internal.exec.Warmup.stop();
    }
}
