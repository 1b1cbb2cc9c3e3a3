package io.partita.runtime;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.backend.reference.ReferenceBackend;
import io.partita.cache.CacheManager;
import io.partita.cache.KernelCache;
import io.partita.cache.config.ConfigProperties;
import io.partita.graph.BackendInfo;
import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.FpMathMode;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.PartitionPolicy;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.runtime.threads.SharedTeams;
import io.partita.spi.Backend;

/**
 * The runtime: the ranked set of backends (always ending with the reference backend) and the
 * factory of graphs. Backends come and go at any time; a partitioning uses the set present when
 * it starts. In OSGi it is the {@link GraphRuntime} service and tracks every {@link Backend}
 * service, ranked by its {@code service.ranking}; on a plain class path {@link StandaloneRuntime}
 * creates it.
 */
@Component(service = GraphRuntime.class, immediate = true, configurationPid = RuntimeCore.PID)
@Designate(ocd = RuntimeConfig.class)
public final class RuntimeCore implements GraphRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeCore.class);

    private final MemoryBudget budget;
    private final BackendHandle reference;
    private volatile List<BackendHandle> backends = List.of();
    /** Backends registered with {@code enabled = false}, and their ranks: listed, never offered graphs. */
    private final Map<Backend, Integer> disabled = new java.util.LinkedHashMap<>();
    private final CacheManager caches;
    /** The CPU thread teams every backend runs its parallel loops on (one per engine and count). */
    private final SharedTeams teams = new SharedTeams("partita-cpu");
    /** The thread setting passed to backends, 0 until {@link #setThreads} is called. */
    private volatile int threads;
    private final KernelCache<CompiledPartitionKey, CompiledPartitionImpl> compiled;
    static final String PID = "io.partita.runtime";
    private final ConfigProperties config;
    /** The backends' MBeans: in OSGi only (a plain class path runtime registers none). */
    private volatile BackendMBeans mbeans;

    /**
     * The OSGi component: the memory limit starts from the framework property
     * {@value GraphRuntime#MEMORY_LIMIT_PROPERTY} (or the system property of that name), then
     * follows Config Admin.
     */
    @Activate
    public RuntimeCore(@Reference CacheManager caches, Map<String, Object> properties, BundleContext context) {
        this(caches, MemoryBudget.create(context.getProperty(MEMORY_LIMIT_PROPERTY), RuntimeCore::malformedProperty));
        configure(properties);
        BackendMBeans m = new BackendMBeans(this::cachedPartitions);
        synchronized (this) {
            m.register(reference);
            backends.forEach(m::register); // bound before activation
            mbeans = m;
        }
    }

    @Deactivate
    void deactivate() {
        BackendMBeans m = mbeans;
        mbeans = null;
        if (m != null) {
            m.unregisterAll();
        }
        teams.close();
    }

    /**
     * A runtime sharing its caches (compiled partitions, backends' constant tensors) with the
     * backends; its memory limit starts from the system property {@value GraphRuntime#MEMORY_LIMIT_PROPERTY}.
     */
    public RuntimeCore(CacheManager caches) {
        this(caches, MemoryBudget.create(System.getProperty(MEMORY_LIMIT_PROPERTY), RuntimeCore::malformedProperty));
    }

    private RuntimeCore(CacheManager caches, MemoryBudget budget) {
        this.caches = caches;
        this.compiled = caches.kernelCache(CacheManager.COMPILED_PARTITIONS);
        this.budget = budget;
        this.reference = new BackendHandle(new ReferenceBackend(budget::limit), Integer.MIN_VALUE);
        long initialLimit = budget.limit(); // what removing memory.limit restores
        this.config = new ConfigProperties(PID).text("memory.limit",
                "bytes, or a number with k, m, g or t (binary multiples, as -Xmx)",
                v -> budget.setLimit(MemoryBudget.parse(PID + " memory.limit", v)), () -> budget.setLimit(initialLimit));
    }

    /** A property cannot be refused to its writer: it is logged, and the default stays. */
    private static void malformedProperty(String message) {
        LOG.error("ignored: {}", message);
    }

    // Config Admin (PID io.partita.runtime): changed properties are applied, a removed one restores
    // the start value, a malformed one is logged quoting it and the expected form (the previous stays).
    @Modified
    void configure(Map<String, Object> properties) {
        config.update(properties);
    }

    /**
     * The compiled partitions of a backend registration held by the compiled-partition cache, one
     * line each: pattern, ops (kind and id), engine, input and output shapes.
     */
    List<String> cachedPartitions(BackendHandle h) {
        List<String> out = new java.util.ArrayList<>();
        for (CompiledPartitionKey k : compiled.keys()) {
            if (k.backend() == h) {
                out.add(k.describe());
            }
        }
        return out;
    }

    /** Compiled partitions, shared while their key (backend, ops, ports, engine) is the same. */
    KernelCache<CompiledPartitionKey, CompiledPartitionImpl> compiledPartitions() {
        return compiled;
    }

    public CacheManager caches() {
        return caches;
    }

    @Reference(service = Backend.class, cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindBackend(Backend backend, Map<String, Object> props) {
        if (enabled(backend, props, true)) {
            addBackend(backend, rank(backend, props, backend.defaultRank()));
        } else {
            synchronized (this) {
                disabled.put(backend, rank(backend, props, backend.defaultRank()));
            }
            LOG.info("backend {} is registered but disabled (enabled = false): it claims nothing", backend.id());
        }
    }

    /**
     * The backend's service properties changed (its configuration: {@code service.ranking},
     * {@code enabled}). A value that is not of the expected form is refused, keeping the current one.
     */
    void updatedBackend(Backend backend, Map<String, Object> props) {
        BackendHandle present = handleOf(backend);
        Integer off;
        synchronized (this) {
            off = disabled.get(backend);
        }
        int current = present != null ? present.rank() : off != null ? off : backend.defaultRank();
        int rank = rank(backend, props, current);
        if (!enabled(backend, props, off == null)) {
            synchronized (this) {
                disabled.put(backend, rank);
            }
            if (present != null) {
                LOG.info("backend {} disabled (enabled = false)", backend.id());
                removeBackend(backend);
            }
            return;
        }
        if (present == null) {
            synchronized (this) {
                disabled.remove(backend);
            }
            addBackend(backend, rank);
        } else {
            rerank(backend, rank);
        }
    }

    void unbindBackend(Backend backend) {
        synchronized (this) {
            disabled.remove(backend);
        }
        removeBackend(backend);
    }

    private synchronized BackendHandle handleOf(Backend backend) {
        for (BackendHandle h : backends) {
            if (h.backend() == backend) {
                return h;
            }
        }
        return null;
    }

    /** The backend's {@code service.ranking}, or {@code current} when it has none or a malformed one (logged). */
    static int rank(Backend backend, Map<String, Object> props, int current) {
        // "service.ranking" (org.osgi.framework.Constants.SERVICE_RANKING) is an Integer by the spec,
        // but a FileInstall .cfg file gives every value as a String: "200" is meant as 200, and
        // ignoring it would silently keep the backend at its default rank.
        Object r = props.get("service.ranking");
        if (r == null) {
            return backend.defaultRank();
        }
        if (r instanceof Integer i) {
            return i;
        }
        if (r instanceof Long l && l == l.intValue()) {
            return l.intValue();
        }
        if (r instanceof String text && text.strip().matches("[+-]?\\d{1,10}")) {
            try {
                return Integer.parseInt(text.strip());
            } catch (NumberFormatException e) {
                // out of int range: refused below
            }
        }
        LOG.error("refused {} service.ranking = '{}': expected an integer from {} to {}; backend {} keeps rank {}",
                pid(backend, props), r, Integer.MIN_VALUE, Integer.MAX_VALUE, backend.id(), current);
        return current;
    }

    /** The backend's {@code enabled} property (true when absent), or {@code current} when malformed (logged). */
    static boolean enabled(Backend backend, Map<String, Object> props, boolean current) {
        Object e = props.get("enabled");
        if (e == null || e instanceof Boolean b && b) {
            return true;
        }
        if (e instanceof Boolean) {
            return false;
        }
        String t = e.toString().strip();
        if (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(t);
        }
        LOG.error("refused {} enabled = '{}': expected true or false; backend {} stays {}", pid(backend, props), e,
                backend.id(), current ? "enabled" : "disabled");
        return current;
    }

    private static Object pid(Backend backend, Map<String, Object> props) {
        Object pid = props.get("service.pid");
        if (pid == null) {
            pid = props.get("component.name");
        }
        return pid != null ? pid : "backend " + backend.id();
    }

    /** Registers a backend at a rank (higher ranks are offered graphs first). */
    public synchronized void addBackend(Backend backend, int rank) {
        for (BackendHandle h : backends) {
            if (h.backend() == backend) {
                return;
            }
        }
        List<BackendHandle> next = new ArrayList<>(backends);
        next.add(new BackendHandle(backend, rank));
        next.sort(Comparator.comparingInt(BackendHandle::rank).reversed());
        backends = List.copyOf(next);
        BackendMBeans m = mbeans;
        if (m != null) {
            next.stream().filter(h -> h.backend() == backend).forEach(m::register);
        }
        backend.setCpuTeams(teams);
        if (threads > 0) {
            backend.setThreads(threads);
        }
        LOG.info("backend {} (version {}) registered at rank {} for {}", backend.id(), backend.version(), rank,
                backend.engineKinds());
    }

    /**
     * Drops a backend: later partitionings no longer see it and its compiled partitions fail with
     * {@link io.partita.graph.BackendUnavailableException}; compilations and executions already running
     * finish, and when the last of them is done its compiled partitions and cached constants are removed.
     */
    public void removeBackend(Backend backend) {
        List<BackendHandle> gone = new ArrayList<>();
        synchronized (this) {
            List<BackendHandle> next = new ArrayList<>(backends);
            for (BackendHandle h : backends) {
                if (h.backend() == backend) {
                    next.remove(h);
                    gone.add(h);
                }
            }
            backends = List.copyOf(next);
        }
        for (BackendHandle h : gone) {
            BackendMBeans m = mbeans;
            if (m != null) {
                m.unregister(h);
            }
            h.markGone(() -> {
                // Leases in use stay valid; a backend of the same id registered since loses its
                // entries too, and recomputes them (keys of another bundle revision never match anyway).
                int dropped = compiled.removeIf(k -> k.backend() == h);
                caches.removeBackend(h.id());
                LOG.info("backend {} removed ({} compiled partitions dropped)", h.id(), dropped);
            });
        }
    }

    /** Changes the rank of a registered backend (e.g. its service.ranking was reconfigured). */
    public synchronized void rerank(Backend backend, int rank) {
        List<BackendHandle> next = new ArrayList<>(backends);
        for (BackendHandle h : next) {
            if (h.backend() == backend && h.rank() != rank) {
                h.setRank(rank); // the same handle: what it compiled stays tied to it
                LOG.info("backend {} now at rank {}", h.id(), rank);
            }
        }
        next.sort(Comparator.comparingInt(BackendHandle::rank).reversed());
        backends = List.copyOf(next);
    }

    /** Active backends, highest rank first, the reference backend last. */
    List<BackendHandle> activeBackends() {
        List<BackendHandle> all = new ArrayList<>(backends);
        all.add(reference);
        return all;
    }

    BackendHandle referenceHandle() {
        return reference;
    }

    /** Where unclaimed ops go: the reference backend (which runs on CPU engines only). */
    BackendHandle fallbackFor(EngineKind kind) {
        return reference;
    }

    @Override
    public Graph createGraph(EngineKind engineKind) {
        return createGraph(engineKind, FpMathMode.STRICT, false);
    }

    @Override
    public Graph createGraph(EngineKind engineKind, FpMathMode fpMathMode, boolean applyToInt) {
        if (engineKind == null || fpMathMode == null) {
            throw new InvalidArgumentException("engine kind and fpmath mode must not be null");
        }
        return new GraphImpl(this, engineKind, fpMathMode, applyToInt);
    }

    /** Active and disabled backends by rank (the reference backend last). */
    @Override
    public List<BackendInfo> backends() {
        List<BackendInfo> all = new ArrayList<>();
        for (BackendHandle h : backends) {
            all.add(h.info());
        }
        synchronized (this) {
            disabled.forEach((b, rank) -> all.add(new BackendInfo(b.id(), b.version(), rank, b.engineKinds(),
                    BackendInfo.State.DISABLED, b.description())));
        }
        all.sort(Comparator.comparingInt(BackendInfo::rank).reversed());
        all.add(reference.info());
        return all;
    }

    @Override
    public CompiledGraph compile(Graph graph, PartitionPolicy policy, Engine engine) {
        if (!(graph instanceof GraphImpl g) || g.runtime() != this) {
            throw new InvalidArgumentException("the graph was created by another runtime; create it with this one");
        }
        return new CompiledGraphImpl(g, policy, engine, budget);
    }

    @Override
    public synchronized void setThreads(int count) {
        if (count < 1 || count > MAX_THREADS) {
            throw new InvalidArgumentException("thread count " + count + " is out of range; expected 1 to " + MAX_THREADS);
        }
        threads = count;
        for (BackendHandle h : backends) {
            h.backend().setThreads(count);
        }
    }

    @Override
    public long memoryLimit() {
        return budget.limit();
    }

    @Override
    public void setMemoryLimit(long bytes) {
        budget.setLimit(bytes);
    }

    /** Bytes the buffers of this runtime's (and its reference runtime's) live compiled graphs reserve. */
    long reservedMemory() {
        return budget.reserved();
    }

    @Override
    public OpSchemaRegistry opSchemas() {
        return OpSchemas.REGISTRY;
    }

    /**
     * The reference backend alone, over the same caches (its compiled partitions are keyed by
     * backend) and the same memory budget.
     */
    @Override
    public GraphRuntime reference() {
        return new RuntimeCore(caches, budget);
    }

    @Override
    public String toString() {
        return "GraphRuntime" + activeBackends();
    }
}
