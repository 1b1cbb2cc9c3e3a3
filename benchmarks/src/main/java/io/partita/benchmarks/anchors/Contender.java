package io.partita.benchmarks.anchors;

/**
 * One engine measured by the anchor benchmark. The harness drives an instance through
 * {@link #prepare} (untimed), then {@link #runOnce} many times (warm-up, then timed one by one),
 * then {@link #close}. Each instance lives in a child JVM of its own that runs one case, so an
 * implementation need not clean up perfectly between cases, but must not keep threads spinning
 * after {@link #close}.
 *
 * <p>Rules that keep the contenders comparable:
 * <ul>
 *   <li>Use exactly the thread count given to the {@link Factory} for the compute (intra-op)
 *       threads. The child JVM also has {@code OMP_NUM_THREADS} set to it.</li>
 *   <li>Everything that depends only on the constants (weights, biases) and the shapes may happen
 *       in {@code prepare}: compiling, choosing kernels, packing or reordering weights, allocating
 *       the input, output and scratch buffers. The input ({@link Case#src()}) is copied in there
 *       too.</li>
 *   <li>{@code runOnce} is one complete inference from the input as given (the plain row-major
 *       layout of {@link Case#srcShape()}) to the output in the plain row-major layout of
 *       {@link Case#outputShape()}: any layout conversion of activations belongs in it. It may
 *       reuse the buffers from {@code prepare} and must return only when the output is
 *       complete.</li>
 * </ul>
 */
public interface Contender extends AutoCloseable {

    /** Creates a contender that computes with {@code threads} threads. */
    @FunctionalInterface
    interface Factory {
        Contender create(int threads) throws Exception;
    }

    /** The name used with {@code --contenders} and in result lines, e.g. {@code onednn}. */
    String name();

    /** A one-line description of the engine and its version, printed by the harness. */
    default String describe() {
        return name();
    }

    /** Builds everything for {@code c} and prepacks its constant weights. Untimed. */
    void prepare(Case c) throws Exception;

    /** One inference of the prepared case. Timed. */
    void runOnce() throws Exception;

    /**
     * The output of the last {@link #runOnce}, row-major in {@link Case#outputShape()}: a copy,
     * used only by {@code anchors --verify}.
     */
    float[] output() throws Exception;

    /** Releases native resources and threads. */
    @Override
    void close() throws Exception;
}
