package io.partita.gpu.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.CacheManager;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;
import io.partita.graph.EngineKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.gpu.internal.cl.DeviceContext;
import io.partita.gpu.internal.cl.Discovery;
import io.partita.gpu.internal.cl.GpuDevice;
import io.partita.gpu.internal.cl.SignalChaining;
import io.partita.gpu.internal.cl.Transfers;
import io.partita.gpu.internal.exec.GpuKernel;
import io.partita.gpu.internal.plan.Claims;
import io.partita.gpu.internal.plan.Planner;
import io.partita.spi.Backend;
import io.partita.spi.Claim;
import io.partita.spi.CompileRequest;
import io.partita.spi.GraphView;
import io.partita.spi.Kernel;

/**
 * The OpenCL engine: every OpenCL device (PoCL's CPU device included) is an engine of kind gpu.
 * Devices are discovered on first use, not on construction, so activating the component costs
 * nothing; programs are built when a partition is compiled.
 */
public final class GpuBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(GpuBackend.class);

    public static final String ID = "gpu";
    public static final int DEFAULT_RANK = 100;

    private final CacheManager caches;
    private final Map<Long, DeviceContext> contexts = new ConcurrentHashMap<>();
    private volatile boolean enabled = true;
    private volatile String selection = "";
    private volatile Planner.MatMulKernel matmulKernel = Planner.MatMulKernel.AUTO;
    private volatile Devices devices;

    /** The engines on offer under the current selection, or why there are none. */
    private record Devices(List<GpuDevice> list, String problem) {
    }

    /** @param caches the runtime's caches: constant inputs stay on the device in the cache of engine gpu.N */
    public GpuBackend(CacheManager caches) {
        this.caches = java.util.Objects.requireNonNull(caches, "caches");
    }

    /** Applies Config Admin settings; the device list is worked out again on next use. */
    public void configure(boolean enable, String deviceSelection) {
        this.enabled = enable;
        this.selection = deviceSelection == null ? "" : deviceSelection.trim();
        this.devices = null;
    }

    /** The MatMul kernel for partitions compiled from now on. */
    public void setMatMulKernel(Planner.MatMulKernel kernel) {
        this.matmulKernel = java.util.Objects.requireNonNull(kernel, "kernel");
    }

    /** The devices offered as engines gpu.0, gpu.1, ... (discovers them on first call). */
    public List<GpuDevice> devices() {
        return state().list();
    }

    private Devices state() {
        Devices d = devices;
        if (d == null) {
            synchronized (this) {
                d = devices;
                if (d == null) {
                    d = discover();
                    devices = d;
                }
            }
        }
        return d;
    }

    private Devices discover() {
        Discovery.Result r = Discovery.discover();
        if (r.devices().isEmpty()) {
            LOG.info("gpu engine: no device ({})", r.problem());
            return new Devices(List.of(), r.problem());
        }
        SignalChaining.warnIfMissing();
        try {
            return new Devices(DeviceSelection.select(r.devices(), selection), "");
        } catch (IllegalArgumentException e) {
            LOG.error("io.partita.gpu devices: {}", e.getMessage());
            return new Devices(List.of(), e.getMessage());
        }
    }

    /** Copies between host and device so far on engine gpu.{@code index}. */
    public Transfers.Snapshot transfers(int index) {
        return context(index).transfers().snapshot();
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String version() {
        return "0.1";
    }

    @Override
    public Set<EngineKind> engineKinds() {
        return Set.of(EngineKind.GPU);
    }

    @Override
    public int defaultRank() {
        return DEFAULT_RANK;
    }

    /** "OpenCL, 1 device" and one line per device (name, driver, memory, extensions). */
    @Override
    public String description() {
        if (!enabled) {
            return "disabled (io.partita.gpu enabled=false)";
        }
        Devices d = state();
        if (d.list().isEmpty()) {
            return "no OpenCL device: " + d.problem();
        }
        return "OpenCL, " + d.list().size() + (d.list().size() == 1 ? " device" : " devices") + "\n"
                + d.list().stream().map(this::describe).collect(Collectors.joining("\n"));
    }

    /** The device's line, with its programs once it has a context. */
    private String describe(GpuDevice dev) {
        DeviceContext c = contexts.get(dev.id().getNativePointer());
        return dev.describe() + (c == null ? "" : "; " + c.programStats().describe());
    }

    /** Programs built and loaded so far on engine gpu.{@code index}. */
    public DeviceContext.ProgramStats programStats(int index) {
        return context(index).programStats();
    }

    @Override
    public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        if (!enabled || state().list().isEmpty()) {
            return List.of();
        }
        return Claims.claim(graph, policy);
    }

    @Override
    public Kernel compile(CompileRequest request) {
        if (!enabled) {
            throw new UnsupportedFeatureException("the gpu engine is disabled (io.partita.gpu enabled=false)");
        }
        int index = request.engine().index();
        DeviceContext device = context(index);
        try (DeviceContext.Session s = device.record()) {
            GpuKernel k = Planner.plan(request, device, caches.constantTensorCache(new Device(DeviceKind.GPU, index)),
                    matmulKernel);
            k.attachCacheBlobs(s.blobs());
            return k;
        }
    }

    @Override
    public boolean givesCacheBlobs() {
        return true;
    }

    /** The device and driver the programs of engine gpu.N were built for (part of every cache blob id). */
    @Override
    public String cacheIdentity(io.partita.graph.Engine engine) {
        List<GpuDevice> list = state().list();
        int index = engine.index();
        return index < list.size() ? context(index).identity() + "|matmul=" + matmulKernel : "no device gpu." + index;
    }

    /** Plans again (cheap) with every program created from the blobs' binaries instead of built from source. */
    @Override
    public Kernel compileFromBlobs(CompileRequest request, List<byte[]> blobs) {
        if (!enabled) {
            throw new UnsupportedFeatureException("the gpu engine is disabled (io.partita.gpu enabled=false)");
        }
        int index = request.engine().index();
        DeviceContext device = context(index);
        try (DeviceContext.Session s = device.replay(blobs)) {
            GpuKernel k = Planner.plan(request, device, caches.constantTensorCache(new Device(DeviceKind.GPU, index)),
                    matmulKernel);
            k.attachCacheBlobs(s.blobs());
            return k;
        } catch (DeviceContext.BlobRefusedException e) {
            throw new io.partita.graph.CacheBlobException(io.partita.graph.CacheBlobException.Reason.REFUSED,
                    "gpu backend, partition " + request.partitionId() + ": " + e.getMessage(), e);
        }
    }

    private DeviceContext context(int index) {
        List<GpuDevice> list = state().list();
        if (index >= list.size()) {
            throw new UnsupportedFeatureException("engine gpu." + index + " does not exist: "
                    + (list.isEmpty() ? "no OpenCL device (" + state().problem() + ")"
                            : list.size() + " OpenCL device" + (list.size() == 1 ? "" : "s") + " selected"));
        }
        GpuDevice dev = list.get(index);
        // keyed by the native device, so a new selection reuses the contexts of devices kept
        return contexts.computeIfAbsent(dev.id().getNativePointer(),
                k -> new DeviceContext(dev));
    }

    @Override
    public void close() {
        caches.removeBackend(ID); // frees the device constants (their cl_mem) once their leases end
        contexts.values().forEach(DeviceContext::close);
        contexts.clear();
    }
}
