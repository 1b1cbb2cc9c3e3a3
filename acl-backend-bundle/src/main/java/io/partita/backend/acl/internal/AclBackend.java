package io.partita.backend.acl.internal;

import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.backend.acl.internal.memory.PoolBudget;
import io.partita.backend.acl.internal.ops.DepthwiseConvolution;
import io.partita.backend.acl.internal.ops.Elementwise;
import io.partita.backend.acl.internal.ops.FullyConnected;
import io.partita.backend.acl.internal.ops.GemmConvolution;
import io.partita.backend.acl.internal.ops.Operator;
import io.partita.backend.acl.internal.ops.Pooling;
import io.partita.backend.acl.internal.ops.SoftMax;
import io.partita.backend.acl.internal.ops.WinogradConvolution;
import io.partita.backend.acl.internal.simd.Neon;
import io.partita.cache.CacheManager;
import io.partita.cache.KernelCache;
import io.partita.graph.EngineKind;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.Backend;
import io.partita.spi.Claim;
import io.partita.spi.CompileRequest;
import io.partita.spi.GraphView;
import io.partita.spi.Kernel;

/**
 * The ACL-style backend: fully connected, GEMM-based and depthwise convolution, elementwise, pooling and SoftMax
 * primitives, each with a cached
 * memory manager whose pools hold the operator's auxiliary tensors. Primitives live in the shared
 * primitive cache; when one leaves it the eviction listener frees its pools. Ranks below the
 * DNNL-style backend by default, so it takes what that one leaves.
 */
public final class AclBackend implements Backend {
    public static final String ID = "acl";
    /** Below the DNNL-style backend (100), above the reference. */
    public static final int DEFAULT_RANK = 50;
    /** Default cap on pooled bytes kept by all primitives of this backend. */
    public static final long DEFAULT_POOL_CAP_MB = 1024;
    private static final Logger LOG = LoggerFactory.getLogger(AclBackend.class);
    private static final AtomicBoolean DECLINE_LOGGED = new AtomicBoolean();

    private final CacheManager caches;
    private final KernelCache<Object, Object> primitives;
    private final KernelCache.Registration evictions;
    private final PoolBudget budget = new PoolBudget(DEFAULT_POOL_CAP_MB << 20);
    private volatile boolean cachedMemory = true;
    private volatile boolean winograd = true;

    /** A primitive cache key: the backend id, the memory manager kind and the operator descriptor. */
    record PrimitiveKey(String backend, boolean cachedMemory, Object desc) {
    }

    public AclBackend(CacheManager caches) {
        this.caches = caches;
        this.primitives = caches.kernelCache(CacheManager.PRIMITIVES);
        this.evictions = primitives.addEvictionListener((k, v) -> {
            if (k instanceof PrimitiveKey && v instanceof AclPrimitive p) {
                p.close();
            }
        });
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String version() {
        return "1";
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
        return "vector=" + Neon.describe() + " memory=" + (cachedMemory ? "cached" : "on-demand") + " pooled="
                + budget.pooledBytes() + "B peak=" + budget.peakPooledBytes() + "B cap=" + (budget.capBytes() >> 20) + "MB"
                + " pool_allocations=" + budget.poolAllocations() + " peak_live=" + budget.peakLivePoolBytes() + "B";
    }

    @Override
    public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        if (graph.engineKind() != EngineKind.CPU) {
            return List.of();
        }
        if (!Neon.USABLE) {
            if (DECLINE_LOGGED.compareAndSet(false, true)) {
                LOG.warn("acl backend claims no ops: {}", Neon.REASON);
            }
            return List.of();
        }
        return Patterns.claim(graph, policy, winograd);
    }

    @Override
    public Kernel compile(CompileRequest request) {
        List<Op> ops = request.ops();
        Op main = ops.get(0);
        Op act = ops.size() == 2 ? ops.get(1) : null;
        boolean relu = act != null && act.kind() == OpKind.ReLU;
        boolean clamp = act != null && act.kind() == OpKind.Clamp && main.kind() != OpKind.MatMul
                && main.kind() != OpKind.Convolution;
        if (ops.size() > 2 || act != null && !relu && !clamp) {
            throw Patterns.unsupported(request.pattern(), ops.get(ops.size() - 1));
        }
        boolean constantWeights = main.inputs().size() > 1
                && request.inputs().stream().anyMatch(t -> t.id() == main.input(1).id() && t.isConstant());
        Object desc = switch (main.kind()) {
            case MatMul -> {
                FullyConnected.Desc d = Patterns.fullyConnected(main);
                yield d == null ? null : new FullyConnected.Desc(d.m(), d.k(), d.n(), d.transA(), d.transB(), d.bias(),
                        relu, constantWeights);
            }
            case Convolution -> {
                GemmConvolution.Desc d = Patterns.convolution(main);
                GemmConvolution.Desc c = d == null ? null : new GemmConvolution.Desc(d.batch(), d.cin(), d.h(), d.w(),
                        d.cout(), d.ho(), d.wo(), d.kh(), d.kw(), d.strideH(), d.strideW(), d.padTop(), d.padLeft(),
                        d.dilH(), d.dilW(), d.groups(), d.channelsLast(), d.weightsXio(), d.bias(), relu,
                        constantWeights);
                if (c != null && Patterns.depthwise(c)) {
                    yield new DepthwiseConvolution.Desc(c);
                }
                yield c != null && request.pattern().startsWith("winograd") && WinogradConvolution.applies(c)
                        ? new WinogradConvolution.Desc(c) : c;
            }
            case MaxPool, AvgPool -> act == null ? Patterns.pooling(main) : null;
            case SoftMax -> act == null ? Patterns.softmax(main) : null;
            case Add, Subtract, Multiply, Maximum, Minimum -> {
                Elementwise.Desc d = Patterns.elementwise(main);
                yield d == null ? null : new Elementwise.Desc(d.arith(), d.count(),
                        relu ? Elementwise.Act.RELU : clamp ? Elementwise.Act.CLAMP : Elementwise.Act.NONE,
                        clamp ? act.floatAttr("min") : 0f, clamp ? act.floatAttr("max") : 0f);
            }
            default -> null;
        };
        if (desc == null || request.outputs().size() != 1 || !Patterns.usable(request.outputs().get(0))) {
            throw Patterns.unsupported(request.pattern(), main);
        }
        return new AclKernel(() -> primitive(desc), request, main, ops.get(ops.size() - 1).output(0).id(),
                caches.constantTensorCache(io.partita.cache.Device.of(request.engine().kind().spelling(),
                        request.engine().index())));
    }

    AclPrimitive primitive(Object desc) {
        boolean cached = cachedMemory;
        Object v = primitives.getOrCreate(new PrimitiveKey(ID, cached, desc),
                key -> new AclPrimitive(desc, operator(desc), budget, cached));
        return (AclPrimitive) v;
    }

    static Operator operator(Object desc) {
        return switch (desc) {
            case FullyConnected.Desc d -> new FullyConnected(d);
            case GemmConvolution.Desc d -> new GemmConvolution(d);
            case Elementwise.Desc d -> new Elementwise(d);
            case DepthwiseConvolution.Desc d -> new DepthwiseConvolution(d);
            case Pooling.Desc d -> new Pooling(d);
            case SoftMax.Desc d -> new SoftMax(d);
            case WinogradConvolution.Desc d -> new WinogradConvolution(d);
            default -> throw new IllegalArgumentException("no ACL-style operator for descriptor " + desc);
        };
    }

    /** Memory manager of primitives created from now on: cached (pools reused) or on-demand (baseline). */
    public void setCachedMemory(boolean cached) {
        this.cachedMemory = cached;
    }

    /**
     * Whether graphs partitioned from now on run 3x3 stride-1 convolutions with enough channels as
     * Winograd F(4x4, 3x3) (the default) or all convolutions as im2col + GEMM.
     */
    public void setWinograd(boolean winograd) {
        this.winograd = winograd;
    }

    /** Cap on pooled bytes; pools beyond it are freed after their run. */
    public void setPoolCapMegabytes(long megabytes) {
        budget.setCapBytes(Math.multiplyExact(megabytes, 1L << 20));
    }

    public PoolBudget budget() {
        return budget;
    }

    @Override
    public void close() {
        primitives.removeIf(k -> k instanceof PrimitiveKey pk && pk.backend().equals(ID)); // the listener frees their pools
        evictions.close();
        caches.removeBackend(ID);
    }
}
