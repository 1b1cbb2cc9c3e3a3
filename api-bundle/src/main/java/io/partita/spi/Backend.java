package io.partita.spi;

import java.util.List;
import java.util.Set;

import org.osgi.annotation.versioning.ConsumerType;

import io.partita.graph.EngineKind;
import io.partita.graph.PartitionPolicy;

/**
 * A provider of kernels for some ops on some engine kinds. Implement {@link #id()},
 * {@link #engineKinds()}, {@link #claim} and {@link #compile}; the defaults cover the rest.
 */
@ConsumerType
public interface Backend {

    /** Stable id, also the backend's key space in the shared caches (e.g. {@code dnnl}). */
    String id();

    /** Version of the backend's kernels; part of persistent cache keys. */
    default String version() {
        return "0";
    }

    Set<EngineKind> engineKinds();

    /** Details for listings such as {@code partita backends}, e.g. the instruction set a CPU backend chose. */
    default String description() {
        return "";
    }

    /** Rank used on a plain class path; in OSGi the {@code service.ranking} property wins. */
    default int defaultRank() {
        return 0;
    }

    /**
     * Claims disjoint sets of the still-unclaimed ops of a finalized graph. Each claim becomes one
     * partition. The runtime rejects claims that overlap, touch claimed ops, or are not convex
     * (a path between two claimed ops through an op outside the claim). A backend must not claim
     * an op whose dims, data types or layouts it cannot handle (e.g. dynamic dims).
     */
    List<Claim> claim(GraphView graph, PartitionPolicy policy);

    /**
     * Compiles a claimed partition for the engine and shapes in the request.
     *
     * @throws io.partita.graph.UnsupportedFeatureException for a valid request this backend cannot serve
     */
    Kernel compile(CompileRequest request);

    /**
     * What, besides the request and the versions the runtime adds, decides the code this backend
     * compiles for the engine: the device and driver (name, vendor, driver and OpenCL versions), the
     * instruction set or vector width chosen, a fingerprint of a code generator. Part of every cache
     * blob id; two processes whose identities differ never share blobs.
     */
    default String cacheIdentity(io.partita.graph.Engine engine) {
        return "";
    }

    /**
     * Whether this backend's kernels give {@linkplain Kernel#cacheBlobs() cache blobs}: only then does
     * the runtime look its partitions up in the persistent store (a lookup is file-system work).
     */
    default boolean givesCacheBlobs() {
        return false;
    }

    /**
     * Compiles from blobs an earlier {@link Kernel#cacheBlobs()} of this backend gave for an equal
     * request (the runtime has checked the blob id and the seal), skipping code generation. A backend
     * that gives no blobs keeps the default.
     *
     * @throws io.partita.graph.CacheBlobException with reason {@code REFUSED} when the blobs cannot be
     *                                             used (the JVM or a driver rejected them)
     * @throws io.partita.graph.UnsupportedFeatureException when this backend does not compile from blobs
     */
    default Kernel compileFromBlobs(CompileRequest request, List<byte[]> blobs) {
        throw new io.partita.graph.UnsupportedFeatureException("backend " + id() + " does not compile from cache blobs");
    }

    /**
     * The runtime's thread setting ({@link io.partita.graph.GraphRuntime#setThreads}): threads of
     * each CPU engine's pool. Backends without a pool of their own ignore it.
     */
    default void setThreads(int threads) {
    }

    /**
     * The runtime's CPU thread teams, given when the backend is registered. A backend with
     * parallel loops runs them on {@code teams.team(engine, threads)} so that all CPU backends
     * share one team per engine; until this is called (a backend used without a runtime) it
     * runs them on the calling thread.
     */
    default void setCpuTeams(CpuTeams teams) {
    }

    /** Called when the runtime drops the backend (bundle stopping); free shared resources here. */
    default void close() {
    }
}
