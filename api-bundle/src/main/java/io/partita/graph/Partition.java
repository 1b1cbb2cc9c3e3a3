package io.partita.graph;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/** A set of ops claimed by one backend, compiled and executed as one unit. */
@ProviderType
public interface Partition {

    /** Unique within its graph's partitioning. */
    long id();

    List<Op> ops();

    /** The backend that claimed the ops ({@code reference} for unclaimed ops). */
    String backendId();

    /** The fusion pattern the backend named for its claim ({@code single_op} for lone ops). */
    String pattern();

    EngineKind engineKind();

    /** Tensors the partition reads from outside it, in a stable order. */
    List<LogicalTensor> inputs();

    /** Tensors the partition produces for use outside it, in a stable order. */
    List<LogicalTensor> outputs();

    /**
     * Compiles for concrete (or {@link LogicalTensor#DYNAMIC_DIM dynamic}) input shapes. Dims
     * known while the graph was built must match; a dim is dynamic at compilation exactly when it
     * was {@code DYNAMIC_DIM} at graph build (an {@link LogicalTensor#UNKNOWN_DIM unknown} one must
     * get its value); explicit strides of an input with dynamic dims must be dense or all
     * {@code DYNAMIC_DIM}. Outputs may leave dims unknown to have them inferred.
     *
     * @throws InvalidArgumentException naming the tensor and the expected form
     */
    CompiledPartition compile(List<LogicalTensor> inputs, List<LogicalTensor> outputs, Engine engine);

    /**
     * The cache blob id of what {@link #compile} would build for these ports and engine: bytes
     * covering everything that decides the compiled code (the ops with their attributes, the port
     * dims, types and layouts, the engine, the fpmath mode, the backend's id and version, its device
     * and driver identity, the Partita and JVM versions). Equal ids mean interchangeable blobs. The
     * same id {@link CompiledPartition#cacheBlobId()} gives.
     *
     * @throws InvalidArgumentException as {@link #compile} would for these ports
     */
    byte[] cacheBlobId(List<LogicalTensor> inputs, List<LogicalTensor> outputs, Engine engine);

    /**
     * Creates the compiled partition from blobs an earlier {@link CompiledPartition#cacheBlobs()}
     * gave (possibly in another process), skipping code generation. The blobs are checked against
     * their seal and the id before the backend sees them; blobs that are refused are never executed.
     *
     * @param blobId the id the blobs were stored under; must equal
     *               {@link #cacheBlobId(List, List, Engine)} for these ports and engine
     * @throws CacheBlobException when the id does not match, a blob is damaged, the backend does not
     *                            compile from blobs, or it refused them
     * @throws InvalidArgumentException as {@link #compile} would for these ports
     */
    CompiledPartition compileFromBlobs(List<LogicalTensor> inputs, List<LogicalTensor> outputs, Engine engine,
            byte[] blobId, List<byte[]> blobs);

    /** Compiles with the partition's own port descriptions. */
    default CompiledPartition compile(Engine engine) {
        return compile(inputs(), outputs(), engine);
    }
}
