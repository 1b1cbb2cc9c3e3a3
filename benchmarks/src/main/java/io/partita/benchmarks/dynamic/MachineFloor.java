package io.partita.benchmarks.dynamic;

import java.util.concurrent.CyclicBarrier;

import io.partita.benchmarks.probes.SgemmProbe;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * What this machine allows at most, measured in the same run: the FMA rate of register-only
 * loops and the rate of reading an array of a given size again and again, on all the threads
 * at once. A block's floor is its flops at the first or its bytes at the second, whichever
 * takes longer: no implementation runs it faster.
 */
final class MachineFloor {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int TRIES = 7;

    private final int threads;

    MachineFloor(int threads) {
        this.threads = threads;
    }

    /** Best GFLOPS over a few tries, every thread running the register-only FMA loop. */
    double fmaGflops() {
        long iters = 2_000_000;
        double best = 0;
        for (int t = 0; t < TRIES; t++) {
            double s = onAllThreads(() -> {
                float[] x = {1.0001f};
                float[] out = new float[S.length()];
                SgemmProbe.peak(x, (int) iters, out);
                return out[0];
            });
            best = Math.max(best, threads * iters * (double) SgemmProbe.PEAK_FLOPS / s / 1e9);
        }
        return best;
    }

    /** Best GB/s over a few tries of every thread summing its share of a {@code bytes} array. */
    double readGbs(long bytes) {
        float[] a = new float[(int) (bytes / 4)];
        java.util.Arrays.fill(a, 1f);
        int share = a.length / threads / S.length() * S.length();
        double best = 0;
        for (int t = 0; t < TRIES + 2; t++) {
            int[] next = {0};
            double s = onAllThreads(() -> {
                int me;
                synchronized (next) {
                    me = next[0]++;
                }
                return sum(a, me * share, share);
            });
            if (t >= 2) { // the first passes page the array in
                best = Math.max(best, (double) share * threads * 4 / s / 1e9);
            }
        }
        return best;
    }

    private static float sum(float[] a, int from, int n) {
        FloatVector s0 = FloatVector.zero(S);
        FloatVector s1 = s0;
        FloatVector s2 = s0;
        FloatVector s3 = s0;
        int vl = S.length();
        int i = from;
        for (int end = from + n - 4 * vl; i <= end; i += 4 * vl) {
            s0 = s0.add(FloatVector.fromArray(S, a, i));
            s1 = s1.add(FloatVector.fromArray(S, a, i + vl));
            s2 = s2.add(FloatVector.fromArray(S, a, i + 2 * vl));
            s3 = s3.add(FloatVector.fromArray(S, a, i + 3 * vl));
        }
        return s0.add(s1).add(s2).add(s3).reduceLanes(VectorOperators.ADD);
    }

    /**
     * Runs the work on every thread at once, started together; seconds from the first start to the
     * last end, timed by the workers themselves (the main thread may not run again until they end).
     */
    private double onAllThreads(java.util.function.Supplier<Float> work) {
        CyclicBarrier start = new CyclicBarrier(threads);
        float[] sink = new float[threads];
        long[] began = new long[threads];
        long[] ended = new long[threads];
        Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            int me = i;
            ts[i] = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                began[me] = System.nanoTime();
                sink[me] = work.get();
                ended[me] = System.nanoTime();
            });
        }
        try {
            for (Thread t : ts) {
                t.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        float keep = 0;
        for (int i = 0; i < threads; i++) {
            first = Math.min(first, began[i]);
            last = Math.max(last, ended[i]);
            keep += sink[i];
        }
        return (last - first) / 1e9 + (Float.isNaN(keep) ? 1e-12 : 0); // keep: the results stay used
    }
}
