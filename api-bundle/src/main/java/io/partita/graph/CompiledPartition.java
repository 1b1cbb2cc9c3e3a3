package io.partita.graph;

import java.time.Duration;
import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/** A partition compiled for an engine and input shapes; executable by many threads at once. */
@ProviderType
public interface CompiledPartition {

    String backendId();

    Engine engine();

    /** The compile-time inputs, with layouts and dims resolved. */
    List<LogicalTensor> inputs();

    /** The compile-time outputs, with inferred dims (dynamic where they depend on dynamic inputs). */
    List<LogicalTensor> outputs();

    /** The compile-time description of an input or output tensor. */
    LogicalTensor queryLogicalTensor(long id);

    /**
     * Output descriptions for concrete input descriptions (dynamic shapes). Dims that were
     * concrete at compile time must keep their values.
     *
     * @throws InvalidArgumentException naming the tensor and dim that contradicts the compiled one
     */
    List<LogicalTensor> inferOutputs(List<LogicalTensor> inputs);

    /**
     * Executes on a stream. Tensors are matched to ports by logical tensor id.
     *
     * @throws InvalidArgumentException for a missing tensor, wrong dims or a buffer of the wrong size
     * @throws BackendUnavailableException when the backend that compiled this partition is gone
     */
    void execute(Stream stream, List<Tensor> inputs, List<Tensor> outputs);

    /**
     * The cache blob id: bytes covering everything that decides the compiled code (ops, attributes,
     * port shapes, types and layouts, engine, fpmath mode, backend id and version, device and driver
     * identity, Partita and JVM versions). A fresh copy on each call.
     */
    byte[] cacheBlobId();

    /**
     * The compiled code as blobs, for {@link Partition#compileFromBlobs} in this or a later process:
     * the backend's own blobs (generated class files, OpenCL program binaries) followed by one seal
     * over the id and every blob, so that damage is detected before anything is loaded. Empty when
     * the backend has nothing to persist (it compiles fast from scratch). Fresh copies on each call.
     */
    List<byte[]> cacheBlobs();

    /** Whether this partition was created from blobs (a persistent cache hit) rather than compiled. */
    boolean fromBlobs();

    /** Time the backend took to compile. */
    Duration compileTime();
}
