package io.partita.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.DeviceKind;
import io.partita.cache.KernelCreationException;
import io.partita.cache.PersistentCache;
import io.partita.graph.BackendUnavailableException;
import io.partita.graph.CacheBlobException;
import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.PartitaException;
import io.partita.graph.Partition;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.registry.ShapePropagation;
import io.partita.spi.Kernel;

/** A claimed set of ops with its boundary tensors; compiles through its backend. */
final class PartitionImpl implements Partition {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionImpl.class);
    private final long id;
    private final GraphImpl graph;
    private final BackendHandle backend;
    private final String pattern;
    private final List<Op> ops;
    private final List<LogicalTensor> inputs;
    private final List<LogicalTensor> outputs;

    PartitionImpl(long id, GraphImpl graph, GraphImpl.Finalized f, BackendHandle backend, String pattern, List<Op> ops) {
        this.id = id;
        this.graph = graph;
        this.backend = backend;
        this.pattern = pattern;
        this.ops = List.copyOf(ops);
        Set<Long> opIds = new HashSet<>();
        Set<Long> produced = new HashSet<>();
        for (Op op : ops) {
            opIds.add(op.id());
            op.outputs().forEach(t -> produced.add(t.id()));
        }
        Map<Long, LogicalTensor> in = new LinkedHashMap<>();
        Map<Long, LogicalTensor> out = new LinkedHashMap<>();
        for (Op op : ops) {
            for (LogicalTensor t : op.inputs()) {
                if (!produced.contains(t.id())) {
                    in.putIfAbsent(t.id(), t);
                }
            }
            for (LogicalTensor t : op.outputs()) {
                boolean usedOutside = f.consumers().getOrDefault(t.id(), List.of()).stream()
                        .anyMatch(c -> !opIds.contains(c.id()));
                if (usedOutside || f.outputIds().contains(t.id())) {
                    out.putIfAbsent(t.id(), t);
                }
            }
        }
        this.inputs = List.copyOf(in.values());
        this.outputs = List.copyOf(out.values());
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public List<Op> ops() {
        return ops;
    }

    @Override
    public String backendId() {
        return backend.id();
    }

    BackendHandle backend() {
        return backend;
    }

    @Override
    public String pattern() {
        return pattern;
    }

    @Override
    public EngineKind engineKind() {
        return graph.engineKind();
    }

    @Override
    public List<LogicalTensor> inputs() {
        return inputs;
    }

    @Override
    public List<LogicalTensor> outputs() {
        return outputs;
    }

    @Override
    public CompiledPartition compile(List<LogicalTensor> givenInputs, List<LogicalTensor> givenOutputs, Engine engine) {
        CompileRequestImpl request = request(givenInputs, givenOutputs, engine);
        return cached(request, () -> compileWith(request));
    }

    @Override
    public byte[] cacheBlobId(List<LogicalTensor> givenInputs, List<LogicalTensor> givenOutputs, Engine engine) {
        return CacheBlobs.id(backend, request(givenInputs, givenOutputs, engine));
    }

    @Override
    public CompiledPartition compileFromBlobs(List<LogicalTensor> givenInputs, List<LogicalTensor> givenOutputs,
            Engine engine, byte[] blobId, List<byte[]> blobs) {
        CompileRequestImpl request = request(givenInputs, givenOutputs, engine);
        byte[] id = CacheBlobs.id(backend, request);
        String what = "cache blobs for partition " + this.id + " (" + backend.id() + ", " + pattern + ")";
        if (blobId == null || !java.security.MessageDigest.isEqual(id, blobId)) {
            throw new CacheBlobException(CacheBlobException.Reason.ID_MISMATCH, what + ": the blob id given ("
                    + (blobId == null ? "null" : blobId.length + " bytes, " + CacheBlobs.name(blobId)) + ") is not this"
                    + " partition's for these ports and engine (" + id.length + " bytes, " + CacheBlobs.name(id)
                    + "): another partition, shape, backend version, device or JVM");
        }
        List<byte[]> opened = CacheBlobs.open(id, blobs, what);
        // an equal partition already compiled in memory is the same code: the checked blobs are not needed
        return cached(request, () -> fromBlobs(request, id, opened, what));
    }

    /** The request for these ports: ports matched, compile inputs checked, shapes propagated. */
    private CompileRequestImpl request(List<LogicalTensor> givenInputs, List<LogicalTensor> givenOutputs,
            Engine engine) {
        if (engine == null || engine.kind() != graph.engineKind()) {
            throw new InvalidArgumentException("partition " + id + " belongs to a " + graph.engineKind()
                    + " graph; cannot compile it for engine " + engine);
        }
        if (backend.isGone()) {
            throw new BackendUnavailableException(backend.id(), "backend " + backend.id()
                    + " is gone; partition the graph again");
        }
        List<LogicalTensor> orderedIn = PortChecks.matchPorts("compile inputs of partition " + id, inputs, givenInputs,
                LogicalTensor::id, true, null);
        List<LogicalTensor> orderedOut = PortChecks.matchPorts("compile outputs of partition " + id, outputs,
                givenOutputs == null ? List.of() : givenOutputs, LogicalTensor::id, false, t -> t);
        Map<Long, LogicalTensor> known = new HashMap<>();
        List<LogicalTensor> compiledIn = new ArrayList<>(inputs.size());
        for (int i = 0; i < inputs.size(); i++) {
            LogicalTensor c = PortChecks.compileInput(inputs.get(i), orderedIn.get(i));
            compiledIn.add(c);
            known.put(c.id(), c);
        }
        ShapePropagation.Result shapes;
        try {
            shapes = ShapePropagation.run(ops, known, Map.of());
        } catch (InvalidGraphException e) {
            throw new InvalidArgumentException("partition " + id + ": the compile inputs do not fit: " + e.getMessage());
        }
        List<LogicalTensor> compiledOut = new ArrayList<>(outputs.size());
        for (int i = 0; i < outputs.size(); i++) {
            compiledOut.add(resolveOutput(shapes.tensors().get(outputs.get(i).id()), orderedOut.get(i)));
        }
        return new CompileRequestImpl(id, pattern, shapes.ops(), compiledIn, compiledOut, engine, graph.fpMathMode());
    }

    /** Through the in-memory compiled partition cache: one compilation per key, however many callers. */
    private CompiledPartition cached(CompileRequestImpl request,
            java.util.function.Supplier<CompiledPartitionImpl> create) {
        CompiledPartitionKey key = new CompiledPartitionKey(backend, pattern, request.ops(), request.inputs(),
                request.outputs(), request.engine(), graph.fpMathMode());
        // Counted as a use of the backend: if it goes meanwhile, its cache entries are dropped after
        // this compilation stored them, not before.
        if (!backend.enter()) {
            throw new BackendUnavailableException(backend.id(), "backend " + backend.id()
                    + " is gone; partition the graph again");
        }
        try {
            return graph.runtime().compiledPartitions().getOrCreate(key, k -> create.get());
        } catch (KernelCreationException e) {
            // the backend's own exception, not the cache's wrapper
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        } finally {
            backend.leave();
        }
    }

    /**
     * A compiled partition missing in memory: from the persistent store when it holds this partition's
     * blobs (enabled for the engine kind), else compiled from scratch, and its blobs stored.
     */
    private CompiledPartitionImpl compileWith(CompileRequestImpl request) {
        PersistentCache store = graph.runtime().caches().persistentCache();
        DeviceKind kind = DeviceKind.fromSpelling(request.engine().kind().spelling());
        if (store == null || !backend.backend().givesCacheBlobs() || !store.enabled(kind)) {
            return compileFromScratch(request, null);
        }
        byte[] id = CacheBlobs.id(backend, request);
        Optional<List<byte[]>> stored = store.load(kind, id);
        if (stored.isPresent()) {
            // the store names the entry's folder when it removes one; no digest of the id on every hit
            String what = "the stored blobs of partition " + this.id + " ("
                    + backend.id() + ", " + pattern + ")";
            try {
                return fromBlobs(request, id, CacheBlobs.open(id, stored.get(), what), what);
            } catch (CacheBlobException e) {
                // intact on disk but unusable: removed (counted as refused) so that this compile replaces it
                LOG.warn("{}; compiling it again", e.getMessage());
                store.remove(kind, id);
            }
        }
        CompiledPartitionImpl compiled = compileFromScratch(request, id);
        List<byte[]> blobs = compiled.cacheBlobs();
        if (!blobs.isEmpty()) {
            store.store(kind, id, blobs);
        }
        return compiled;
    }

    private CompiledPartitionImpl compileFromScratch(CompileRequestImpl request, byte[] id) {
        long t0 = System.nanoTime();
        Kernel kernel;
        try {
            kernel = backend.backend().compile(request);
        } catch (PartitaException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new PartitaException("backend " + backend.id() + " failed to compile partition " + this.id + " ("
                    + pattern + "): " + e, e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        backend.compiled();
        return new CompiledPartitionImpl(this, backend, kernel, request, took, id, false);
    }

    private CompiledPartitionImpl fromBlobs(CompileRequestImpl request, byte[] id, List<byte[]> blobs, String what) {
        long t0 = System.nanoTime();
        Kernel kernel;
        try {
            kernel = backend.backend().compileFromBlobs(request, blobs);
        } catch (CacheBlobException e) {
            throw e;
        } catch (UnsupportedFeatureException e) {
            throw new CacheBlobException(CacheBlobException.Reason.UNSUPPORTED, what + ": backend " + backend.id()
                    + " does not compile from blobs (" + e.getMessage() + ")", e);
        } catch (RuntimeException | LinkageError e) {
            throw new CacheBlobException(CacheBlobException.Reason.REFUSED, what + ": backend " + backend.id()
                    + " refused the blobs: " + e, e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        backend.compiled();
        return new CompiledPartitionImpl(this, backend, kernel, request, took, id, true);
    }

    /** The inferred output merged with what the user asked for (dims must agree, layout honoured). */
    private LogicalTensor resolveOutput(LogicalTensor inferred, LogicalTensor given) {
        String who = "compile output tensor " + given.id() + " of partition " + id;
        if (given.dataType() != inferred.dataType()) {
            throw new InvalidArgumentException(who + " has data type " + given.dataType() + " but the graph produces "
                    + inferred.dataType());
        }
        long[] inf = inferred.dims();
        long[] g = given.dims();
        long[] dims = inf;
        if (g != null && inf != null) {
            if (g.length != inf.length) {
                throw new InvalidArgumentException(who + " is given rank " + g.length + " "
                        + LogicalTensor.dimsToString(g) + " but the partition produces "
                        + LogicalTensor.dimsToString(inf));
            }
            dims = new long[g.length];
            for (int k = 0; k < g.length; k++) {
                Long m = Dims.merge(g[k], inf[k]);
                if (m == null) {
                    throw new InvalidArgumentException(who + " is given " + LogicalTensor.dimsToString(g)
                            + " but the partition produces " + LogicalTensor.dimsToString(inf));
                }
                dims[k] = inf[k] == LogicalTensor.DYNAMIC_DIM ? LogicalTensor.DYNAMIC_DIM : m;
            }
        }
        if (dims == null) {
            throw new InvalidArgumentException(who + ": its rank cannot be inferred from the inputs");
        }
        boolean explicitStrides = given.layoutType() == LayoutType.STRIDED && g != null && Dims.allKnown(g)
                && Dims.allKnown(dims) && !java.util.Arrays.equals(given.strides(), LogicalTensor.denseStrides(g));
        // Outputs the user leaves as any/undef get the runtime's choice: dense strided.
        LogicalTensor r = LogicalTensor.of(inferred.id(), inferred.dataType(), dims, LayoutType.STRIDED, null,
                given.property());
        if (!explicitStrides) {
            return r;
        }
        r = r.withStrides(given.strides());
        if (r.stridesMayAlias()) {
            throw new InvalidArgumentException(who + " has strides " + LogicalTensor.dimsToString(r.strides())
                    + " for dims " + LogicalTensor.dimsToString(dims)
                    + " that let distinct elements share memory; an output must give each element its own bytes");
        }
        return r;
    }

    @Override
    public String toString() {
        return "Partition " + id + " [" + backend.id() + ", " + pattern + ", ops "
                + ops.stream().map(Op::id).toList() + "]";
    }
}
