package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/** Single-thread micro-kernel throughput (not a test): the channels-first 6x64 kernel over a 64-channel 58x58 plane set. */
public final class ConvKernelProbe {
    public static void main(String[] args) {
        int c = 64;
        int wq = 58;
        int hq = 58;
        int k = c * 9;
        float[] planes = new float[c * hq * wq + 256];
        Arrays.fill(planes, 0.5f);
        float[] a = new float[11 * k * 6];
        Arrays.fill(a, 0.25f);
        int[] kOff = new int[k];
        for (int i = 0; i < c; i++) {
            for (int t = 0; t < 9; t++) {
                kOff[i * 9 + t] = i * hq * wq + (t / 3) * wq + t % 3;
            }
        }
        float[] tile = new float[6 * 128];
        boolean nativeMem = args.length > 0 && args[0].equals("native");
        MemorySegment x = nativeMem ? Arena.global().allocate(4L * planes.length, 64) : MemorySegment.ofArray(planes);
        if (nativeMem) {
            MemorySegment.copy(MemorySegment.ofArray(planes), 0, x, 0, 4L * planes.length);
        }
        int tiles = (55 * wq + 56 + 63) / 64;
        long[] t = new long[200];
        for (int it = 0; it < t.length; it++) {
            long t0 = System.nanoTime();
            for (int tl = 0; tl < tiles; tl++) {
                for (int b = 0; b < 11; b++) {
                    ConvKernels.rows6(a, b * k * 6, x, 4L * tl * 64, kOff, 0, k, tile);
                }
            }
            t[it] = System.nanoTime() - t0;
        }
        Arrays.sort(t);
        double flops = 2.0 * tiles * 64 * 66 * k;
        System.out.printf("rows6 %s: median %.3f ms, %.1f GFLOPS (useful %.1f)%n", nativeMem ? "native" : "heap",
                t[t.length / 2] / 1e6, flops / t[t.length / 2], 2.0 * 64 * 64 * 3136 * 9 / t[t.length / 2]);
    }
}
