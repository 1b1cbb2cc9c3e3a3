package io.partita.backend.dnnl.internal;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.spi.CpuTeam;
import io.partita.spi.CpuTeams;
import io.partita.backend.dnnl.internal.isa.Isa;
import io.partita.backend.dnnl.internal.ops.SingleOps;
import io.partita.backend.dnnl.internal.pattern.PatternMatcher;
import io.partita.backend.dnnl.internal.plan.Planner;
import io.partita.backend.dnnl.internal.postops.Activation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.cache.CacheManager;
import io.partita.cache.KernelCache;
import io.partita.graph.EngineKind;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.Backend;
import io.partita.spi.Claim;
import io.partita.spi.CompileRequest;
import io.partita.spi.GraphView;
import io.partita.spi.Kernel;

/**
 * The DNNL-style backend: claims f32 fusion patterns, oneDNN's int8 MatMul and Convolution patterns
 * (computed in f32 on dequantized operands) and single ops with static shapes, compiles
 * each partition into a primitive kept in the primitive cache (equal descriptors share one), and
 * runs it on the runtime's thread team of its engine (shared with the other CPU backends), with
 * constant weights packed once into the unified cache.
 * Where the JVM does not compile the Vector API to vector instructions ({@link Isa#USABLE}) it
 * claims nothing: its kernels would run tens of times slower than the reference backend's.
 */
public final class DnnlBackend implements Backend {
    public static final String ID = "dnnl";
    /** Above the reference backend (and the ACL-style one); the OSGi component registers it as its ranking. */
    public static final int DEFAULT_RANK = 100;
    private static final Logger LOG = LoggerFactory.getLogger(DnnlBackend.class);
    private static final AtomicBoolean DECLINE_LOGGED = new AtomicBoolean();

    private final CacheManager caches;
    private final KernelCache<PrimitiveKey, Primitive> primitives;
    /** The team each engine's kernels last used (a cache of {@code teams.team(engine, threads)}). */
    private final Map<Integer, TeamOf> pools = new ConcurrentHashMap<>();
    private volatile CpuTeams teams;
    private final Set<OpKind> implemented;
    private volatile int threads = ThreadSetting.fromEnvironment(System.getenv(ThreadSetting.ENV));

    /** A primitive cache key: this backend's id and a descriptor (records compared by value). */
    record PrimitiveKey(String backend, Object desc) {
    }

    public DnnlBackend(CacheManager caches) {
        this.caches = caches;
        this.primitives = caches.kernelCache(CacheManager.PRIMITIVES);
        EnumSet<OpKind> kinds = EnumSet.of(OpKind.MatMul, OpKind.Convolution, OpKind.BiasAdd,
                OpKind.BatchNormInference);
        kinds.addAll(Activation.SUPPORTED);
        for (OpKind k : OpKind.values()) {
            if (PatternMatcher.isBinary(k)) {
                kinds.add(k);
            }
        }
        kinds.addAll(SingleOps.kinds());
        this.implemented = Set.copyOf(kinds);
        Warmup.startOnce();
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
        return "isa=" + Isa.describe();
    }

    @Override
    public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        if (!Isa.USABLE) {
            if (DECLINE_LOGGED.compareAndSet(false, true)) {
                LOG.warn("dnnl backend claims no ops: the Vector API is not usable on this JVM ({})", Isa.REASON);
            }
            return List.of();
        }
        return PatternMatcher.claim(graph, policy, implemented);
    }

    @Override
    public Kernel compile(CompileRequest request) {
        DenseOutputs relay = DenseOutputs.of(request);
        Object desc = Planner.describe(relay == null ? request : relay.plannedRequest(request));
        Primitive p = primitives.getOrCreate(new PrimitiveKey(ID, desc), key -> Planner.create(key.desc()));
        return new DnnlKernel(this, p, request, relay);
    }

    /** Threads of each engine's pool; changing it rebuilds the pools before their next use. */
    @Override
    public void setThreads(int count) {
        if (count < 1 || count > ThreadSetting.MAX) {
            throw new IllegalArgumentException("dnnl thread count must be from 1 to " + ThreadSetting.MAX + ", got " + count);
        }
        threads = count;
    }

    public int threads() {
        return threads;
    }

    /** The runtime's thread teams: the kernels' loops run on the team of their engine. */
    @Override
    public void setCpuTeams(CpuTeams teams) {
        this.teams = teams;
        pools.clear();
    }

    /**
     * The runtime's team of an engine for the thread setting, or null (loops on the calling
     * thread) for a backend used without a runtime.
     */
    CpuTeam pool(int engineIndex) {
        int count = threads;
        CpuTeams t = teams;
        TeamOf p = pools.get(engineIndex);
        if (p != null && p.source() == t && p.threads() == count) {
            return p.team();
        }
        if (t == null) {
            return null;
        }
        CpuTeam team = t.team(engineIndex, count);
        pools.put(engineIndex, new TeamOf(t, count, team)); // the runtime's teams are shared: nothing to close
        return team;
    }

    /** A team and what it was asked for: a new runtime's teams or a new count replace it. */
    private record TeamOf(CpuTeams source, int threads, CpuTeam team) {
    }

    CacheManager caches() {
        return caches;
    }

    @Override
    public void close() {
        Warmup.stop();
        pools.clear(); // the teams are the runtime's
        primitives.removeIf(k -> k.backend().equals(ID));
    }
}
