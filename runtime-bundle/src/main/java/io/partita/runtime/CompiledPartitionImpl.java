package io.partita.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.partita.graph.BackendUnavailableException;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.spi.Kernel;

/**
 * A compiled partition: validates every call against the compiled ports, then runs the
 * backend's kernel. Immutable and safe for concurrent executions.
 */
final class CompiledPartitionImpl implements CompiledPartition {
    private static final MethodHandle EXECUTE;
    private static final MethodHandle RUN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            EXECUTE = lookup.findVirtual(Kernel.class, "execute",
                    MethodType.methodType(void.class, Stream.class, List.class, List.class));
            RUN = lookup.findVirtual(Kernel.Call.class, "run", MethodType.methodType(void.class, Stream.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** Integer inputs up to this many elements have their values read for shape inference. */
    private static final int SHAPE_VALUE_LIMIT = 64;

    private final PartitionImpl partition;
    private final BackendHandle backend;
    private final Kernel kernel;
    /**
     * {@link Kernel#execute} and {@link Kernel.Call#run}, called through handles held per instance,
     * which the JIT cannot see through. Called directly, C2 inlined the backend's whole execution
     * path (convolution, packing, GEMM: 4.8 KB of bytecode) into the graph's replay loop: a
     * 0.3-0.4 s compile that took one of two cores from the inference threads several seconds
     * into a run (every slow ResNet-50 iteration after warm-up fell in one; with the handle the
     * loop's compile took 10 ms). A handle call costs nanoseconds per partition.
     */
    private final MethodHandle execute = EXECUTE;
    private final MethodHandle run = RUN;
    private final CompileRequestImpl request;
    private final Duration compileTime;
    private final Map<Long, LogicalTensor> ports = new HashMap<>();
    private final boolean dynamic;
    private final boolean fromBlobs;
    private volatile byte[] blobId;
    /**
     * The input descriptions of the last shape inference and its outputs (dynamic partitions): a
     * partition executed at one shape again and again infers once. Rebuilding the partition's ops
     * for the shape cost ~15 µs per execution, more than attention at sequence 16.
     */
    private volatile Inferred lastInferred;

    /** Immutable: descriptions are values. */
    private record Inferred(List<LogicalTensor> inputs, List<LogicalTensor> outputs) {
    }

    CompiledPartitionImpl(PartitionImpl partition, BackendHandle backend, Kernel kernel, CompileRequestImpl request,
            Duration compileTime, byte[] blobId, boolean fromBlobs) {
        this.blobId = blobId;
        this.fromBlobs = fromBlobs;
        this.partition = partition;
        this.backend = backend;
        this.kernel = kernel;
        this.request = request;
        this.compileTime = compileTime;
        request.inputs().forEach(t -> ports.put(t.id(), t));
        request.outputs().forEach(t -> ports.put(t.id(), t));
        this.dynamic = request.outputs().stream().anyMatch(t -> !t.isConcrete());
    }

    @Override
    public String backendId() {
        return backend.id();
    }

    @Override
    public Engine engine() {
        return request.engine();
    }

    @Override
    public List<LogicalTensor> inputs() {
        return request.inputs();
    }

    @Override
    public List<LogicalTensor> outputs() {
        return request.outputs();
    }

    @Override
    public Duration compileTime() {
        return compileTime;
    }

    @Override
    public byte[] cacheBlobId() {
        return id().clone();
    }

    private byte[] id() {
        byte[] id = blobId;
        if (id == null) {
            id = CacheBlobs.id(backend, request);
            blobId = id;
        }
        return id;
    }

    @Override
    public List<byte[]> cacheBlobs() {
        return CacheBlobs.seal(id(), kernel.cacheBlobs());
    }

    @Override
    public boolean fromBlobs() {
        return fromBlobs;
    }

    @Override
    public LogicalTensor queryLogicalTensor(long id) {
        LogicalTensor t = ports.get(id);
        if (t == null) {
            throw new InvalidArgumentException("tensor " + id + " is not an input or output of partition "
                    + partition.id() + "; its ports are " + ports.keySet());
        }
        return t;
    }

    @Override
    public List<LogicalTensor> inferOutputs(List<LogicalTensor> givenInputs) {
        String what = "inferOutputs of partition " + partition.id() + ":";
        List<LogicalTensor> ordered = PortChecks.matchPorts(what, request.inputs(), givenInputs, LogicalTensor::id,
                true, null);
        for (int i = 0; i < ordered.size(); i++) {
            PortChecks.executionInput(what + " input", request.inputs().get(i), ordered.get(i));
        }
        return concreteOutputs(ordered, Map.of());
    }

    private List<LogicalTensor> concreteOutputs(List<LogicalTensor> concreteInputs, Map<Long, long[]> values) {
        if (!dynamic) {
            return request.outputs();
        }
        Inferred last = lastInferred;
        if (values.isEmpty() && last != null && last.inputs().equals(concreteInputs)) {
            return last.outputs();
        }
        Map<Long, LogicalTensor> all;
        try {
            all = request.inferShapes(concreteInputs, values);
        } catch (InvalidGraphException e) {
            throw new InvalidArgumentException("partition " + partition.id() + ": " + e.getMessage());
        }
        List<LogicalTensor> out = new ArrayList<>(request.outputs().size());
        for (LogicalTensor compiled : request.outputs()) {
            LogicalTensor t = all.get(compiled.id());
            if (t == null || !t.isConcrete()) {
                throw new InvalidArgumentException("partition " + partition.id() + ": output tensor " + compiled.id()
                        + " depends on the values of a shape input (e.g. DynamicReshape's target shape); "
                        + "give the input tensors to execute, or allocate the output from a known shape");
            }
            out.add(t.withProperty(compiled.property()));
        }
        List<LogicalTensor> outputs = List.copyOf(out);
        if (values.isEmpty()) { // outputs that depend on shape values are inferred every time
            lastInferred = new Inferred(List.copyOf(concreteInputs), outputs);
        }
        return outputs;
    }

    @Override
    public void execute(Stream stream, List<Tensor> inputs, List<Tensor> outputs) {
        if (!backend.enter()) {
            throw unavailable();
        }
        backend.executed();
        try {
            checkAndExecute(stream, inputs, outputs);
        } finally {
            backend.leave();
        }
    }

    private BackendUnavailableException unavailable() {
        return new BackendUnavailableException(backend.id(), "backend " + backend.id() + " that compiled partition "
                + partition.id() + " is gone (bundle stopped, updated or disabled); partition the graph again");
    }

    private void checkAndExecute(Stream stream, List<Tensor> inputs, List<Tensor> outputs) {
        if (!stream.engine().equals(request.engine())) {
            throw new InvalidArgumentException("partition " + partition.id() + " was compiled for engine "
                    + request.engine() + " but the stream is on " + stream.engine());
        }
        String what = "execute of partition " + partition.id() + ":";
        List<Tensor> in = PortChecks.matchPorts(what + " inputs", request.inputs(), inputs, Tensor::id, true, null);
        List<Tensor> out = PortChecks.matchPorts(what + " outputs", request.outputs(), outputs, Tensor::id, true, null);
        List<LogicalTensor> inLts = new ArrayList<>(in.size());
        Map<Long, long[]> values = new HashMap<>();
        for (int i = 0; i < in.size(); i++) {
            Tensor t = in.get(i);
            LogicalTensor compiled = request.inputs().get(i);
            PortChecks.executionInput(what + " input", compiled, t.logicalTensor());
            PortChecks.executionLayout(what + " input", compiled, t.logicalTensor());
            checkEngine(what, t);
            inLts.add(t.logicalTensor());
            if (dynamic && isShapeCandidate(t)) {
                values.put(t.id(), readLongs(t));
            }
        }
        List<LogicalTensor> expectedOut = concreteOutputsOrNull(inLts, values);
        for (int i = 0; i < out.size(); i++) {
            Tensor t = out.get(i);
            LogicalTensor lt = t.logicalTensor();
            LogicalTensor compiled = request.outputs().get(i);
            if (expectedOut != null) {
                LogicalTensor exp = expectedOut.get(i);
                if (!java.util.Arrays.equals(exp.dims(), lt.dims()) || exp.dataType() != lt.dataType()) {
                    throw new InvalidArgumentException(what + " output tensor " + t.id() + " is " + lt.dataType() + " "
                            + LogicalTensor.dimsToString(lt.dims()) + " but the partition produces " + exp.dataType()
                            + " " + LogicalTensor.dimsToString(exp.dims()));
                }
            } else {
                PortChecks.executionInput(what + " output", compiled, lt);
            }
            PortChecks.executionLayout(what + " output", compiled, lt);
            checkEngine(what, t);
        }
        kernel.execute(stream, in, out);
    }

    private List<LogicalTensor> concreteOutputsOrNull(List<LogicalTensor> inLts, Map<Long, long[]> values) {
        try {
            return concreteOutputs(inLts, values);
        } catch (InvalidArgumentException e) {
            // Value-dependent outputs whose values sit on a device: the kernel checks them.
            if (request.engine().kind() != EngineKind.CPU) {
                return null;
            }
            throw e;
        }
    }

    private void checkEngine(String what, Tensor t) {
        if (!t.engine().equals(request.engine())) {
            throw new InvalidArgumentException(what + " tensor " + t.id() + " lives on engine " + t.engine()
                    + " but the partition was compiled for " + request.engine());
        }
    }

    static boolean isShapeCandidate(Tensor t) {
        DataType dt = t.logicalTensor().dataType();
        return (dt == DataType.S32 || dt == DataType.S64) && t.engine().kind() == EngineKind.CPU
                && t.logicalTensor().elementCount() <= SHAPE_VALUE_LIMIT;
    }

    static long[] readLongs(Tensor t) {
        double[] d = t.toDoubleArray();
        long[] v = new long[d.length];
        for (int i = 0; i < d.length; i++) {
            v[i] = (long) d[i];
        }
        return v;
    }

    /** Concrete output descriptions for these input tensors (reads shape-deciding input values). */
    List<LogicalTensor> outputsFor(List<Tensor> inputs) {
        if (!dynamic) {
            return request.outputs();
        }
        List<LogicalTensor> lts = new ArrayList<>(inputs.size());
        Map<Long, long[]> values = new HashMap<>();
        for (Tensor t : inputs) {
            lts.add(t.logicalTensor());
            if (isShapeCandidate(t)) {
                values.put(t.id(), readLongs(t));
            }
        }
        return concreteOutputs(lts, values);
    }

    PartitionImpl partition() {
        return partition;
    }

    Kernel kernel() {
        return kernel;
    }

    /** Whether the outputs' shapes depend on the inputs (dynamic dimensions or shape values). */
    boolean dynamic() {
        return dynamic;
    }

    BackendHandle handle() {
        return backend;
    }

    /** A replay's call while its caller holds the backend {@linkplain BackendHandle#enter entered}. */
    void executeEntered(Stream stream, List<Tensor> inputs, List<Tensor> outputs) {
        backend.executed();
        try {
            execute.invokeExact(kernel, stream, inputs, outputs);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** What a handle call threw, rethrown as is (the kernel's methods declare no checked exception). */
    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return t instanceof RuntimeException r ? r : new IllegalStateException(t);
    }

    /**
     * A replay's call over tensors the plan owns, prepared by the kernel once (run while the caller
     * holds the backend entered, as {@link #executeEntered}).
     */
    Kernel.Call prepareEntered(List<Tensor> inputs, List<Tensor> outputs) {
        Kernel.Call call = kernel.prepare(inputs, outputs);
        MethodHandle h = run;
        return stream -> {
            backend.executed();
            try {
                h.invokeExact(call, stream);
            } catch (Throwable t) {
                throw unchecked(t);
            }
        };
    }

    @Override
    public String toString() {
        return "CompiledPartition " + partition.id() + " [" + backend.id() + ", " + request.pattern() + "]";
    }
}
