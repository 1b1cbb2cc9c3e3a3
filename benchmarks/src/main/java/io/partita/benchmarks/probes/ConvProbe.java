package io.partita.benchmarks.probes;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * Convolution throughput probe (not a test), through the public API: one conv partition (constant
 * weights and bias, packed once) compiled and executed on a stream, median of many runs after
 * warm-up.
 *
 * <pre>java ... ConvProbe [threads N C H W K R S pad stride format(NCX|NXC) seconds]</pre>
 * Defaults: 2 threads, the ResNet layer N=1 C=64 56x56 K=64 3x3 pad 1 stride 1, NCX, 3 s.
 * {@code -Dprobe.rotate=R} runs on R sources in turn (cold in cache, as in a network: a 1x1
 * convolution on a 3.2 MB 56x56 source took 0.74 ms warm and 1.0 ms with R=16); {@code
 * -Dprobe.ab=CLASS.FIELD=A,B} alternates an experiment's static switch in one process instead
 * (see {@link #alternate}).
 */
public final class ConvProbe {
    public static void main(String[] args) {
        int[] v = {2, 1, 64, 56, 56, 64, 3, 3, 1, 1};
        for (int i = 0; i < Math.min(args.length, v.length); i++) {
            v[i] = Integer.parseInt(args[i]);
        }
        boolean nxc = args.length > 10 && args[10].equals("NXC");
        double seconds = args.length > 11 ? Double.parseDouble(args[11]) : 3;
        int threads = v[0];
        int n = v[1];
        int c = v[2];
        int h = v[3];
        int w = v[4];
        int k = v[5];
        int r = v[6];
        int s = v[7];
        int pad = v[8];
        int stride = v[9];
        int oh = (h + 2 * pad - r) / stride + 1;
        int ow = (w + 2 * pad - s) / stride + 1;

        GraphRuntime rt = GraphRuntime.standalone();
        rt.setThreads(threads);
        Graph g = rt.createGraph(EngineKind.CPU);
        long[] src = nxc ? new long[] {n, h, w, c} : new long[] {n, c, h, w};
        long[] dst = nxc ? new long[] {n, oh, ow, k} : new long[] {n, k, oh, ow};
        g.add(Op.builder(0, OpKind.Convolution)
                .inputs(LogicalTensor.of(0, DataType.F32, src),
                        LogicalTensor.of(1, DataType.F32, k, c, r, s).withProperty(PropertyType.CONSTANT),
                        LogicalTensor.of(2, DataType.F32, k).withProperty(PropertyType.CONSTANT))
                .output(LogicalTensor.of(3, DataType.F32, dst))
                .attr("strides", new long[] {stride, stride}).attr("dilations", new long[] {1, 1})
                .attr("pads_begin", new long[] {pad, pad}).attr("pads_end", new long[] {pad, pad})
                .attr("data_format", nxc ? "NXC" : "NCX").attr("weights_format", "OIX").build());
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        Partition p = parts.get(0);
        if (parts.size() != 1 || !p.backendId().equals("dnnl")) {
            throw new IllegalStateException("expected one dnnl partition, got " + parts);
        }
        Engine e = Engine.cpu();
        CompiledPartition cp = p.compile(e);
        try (Arena arena = Arena.ofShared()) {
            List<Tensor> in = new ArrayList<>();
            SplittableRandom rnd = new SplittableRandom(1);
            for (LogicalTensor lt : cp.inputs()) {
                in.add(random(lt, e, arena, rnd));
            }
            List<Tensor> out = List.of(Tensor.allocate(cp.outputs().get(0), e, arena));
            // -Dprobe.rotate=R: R sources used in turn (R x the source beyond the cache, as in a network
            // where the previous layer's output has left it); the first is the one filled above
            int rotate = Math.max(1, Integer.getInteger("probe.rotate", 1));
            List<List<Tensor>> ins = new ArrayList<>(List.of(in));
            List<List<Tensor>> outs = new ArrayList<>(List.of(out));
            for (int i = 1; i < rotate; i++) {
                List<Tensor> ri = new ArrayList<>(in);
                ri.set(0, random(cp.inputs().get(0), e, arena, rnd));
                ins.add(ri);
                outs.add(List.of(Tensor.allocate(cp.outputs().get(0), e, arena)));
            }
            int[] turn = {0};
            Stream stream = new Stream(e);
            double flops = 2.0 * n * k * c * r * s * oh * ow;
            long warmEnd = System.nanoTime() + 1_000_000_000L;
            int warm = 0;
            while (System.nanoTime() < warmEnd || warm < 20) {
                cp.execute(stream, in, out);
                warm++;
            }
            String ab = System.getProperty("probe.ab");
            if (ab != null) {
                alternate(ab, () -> {
                    int r0 = turn[0]++ % rotate;
                    cp.execute(stream, ins.get(r0), outs.get(r0));
                });
                System.exit(0);
            }
            // Windows of ~0.25 s: the machine is shared, so besides the overall median the best window's
            // median shows the undisturbed speed.
            int windows = Math.max(1, (int) (seconds * 4));
            long[] all = new long[1 << 20];
            int total = 0;
            double bestWindow = Double.MAX_VALUE;
            for (int win0 = 0; win0 < windows; win0++) {
                long end = System.nanoTime() + 250_000_000L;
                int from = total;
                while ((System.nanoTime() < end || total - from < 10) && total < all.length) {
                    int r0 = turn[0]++ % rotate;
                    long t0 = System.nanoTime();
                    cp.execute(stream, ins.get(r0), outs.get(r0));
                    all[total++] = System.nanoTime() - t0;
                }
                long[] win = Arrays.copyOfRange(all, from, total);
                Arrays.sort(win);
                bestWindow = Math.min(bestWindow, win[win.length / 2]);
            }
            // With one thread the work runs on this thread: its CPU time per run is immune to other processes.
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long[] cpu = new long[200];
            for (int i = 0; i < cpu.length; i++) {
                long c0 = mx.getCurrentThreadCpuTime();
                cp.execute(stream, in, out);
                cpu[i] = mx.getCurrentThreadCpuTime() - c0;
            }
            Arrays.sort(cpu);
            if (threads == 1) {
                System.out.printf("calling thread CPU time per run: median %.3f ms, %.1f GFLOPS%n", cpu[100] / 1e6,
                        flops / cpu[100]);
            }
            long[] run = Arrays.copyOf(all, total);
            Arrays.sort(run);
            double med = run[total / 2];
            System.out.printf("conv %s n%d c%d %dx%d k%d %dx%d p%d s%d, %d threads: median %.3f ms (p10 %.3f, p90 %.3f)"
                    + " over %d runs, %.1f GFLOPS; best 0.25 s window: %.3f ms, %.1f GFLOPS%n", nxc ? "NXC" : "NCX", n,
                    c, h, w, k, r, s, pad, stride, threads, med / 1e6, run[total / 10] / 1e6, run[total * 9 / 10] / 1e6,
                    total, flops / med, bestWindow / 1e6, flops / bestWindow);
        }
        System.exit(0);
    }

    private static Tensor random(LogicalTensor lt, Engine e, Arena arena, SplittableRandom rnd) {
        Tensor t = Tensor.allocate(lt, e, arena);
        float[] data = new float[(int) lt.elementCount()];
        for (int i = 0; i < data.length; i++) {
            data[i] = (float) (rnd.nextDouble() * 2 - 1);
        }
        t.copyFrom(data);
        return t;
    }

    /**
     * In-process A/B of an experiment's switch, {@code CLASS.FIELD=A,B}: the static int field is set
     * to A, then B, for 0.2 s of runs each, over {@code -Dprobe.rounds} rounds (30). Separate
     * processes differ by 20% on this machine (placement, JIT); alternating in one process compares
     * like with like. Prints each value's median of round medians and B's speedup over A.
     */
    private static void alternate(String spec, Runnable run) {
        String[] kv = spec.split("=", 2);
        int dot = kv[0].lastIndexOf('.');
        if (kv.length != 2 || dot < 0) {
            throw new IllegalArgumentException("probe.ab must be CLASS.FIELD=A,B, got " + spec);
        }
        java.lang.reflect.Field f;
        try {
            f = Class.forName(kv[0].substring(0, dot)).getDeclaredField(kv[0].substring(dot + 1));
            f.setAccessible(true);
        } catch (ReflectiveOperationException x) {
            throw new IllegalArgumentException("probe.ab: no static field " + kv[0], x);
        }
        String[] vals = kv[1].split(",");
        if (vals.length != 2) {
            throw new IllegalArgumentException("probe.ab needs two values A,B, got " + kv[1]);
        }
        int rounds = Math.max(1, Integer.getInteger("probe.rounds", 30));
        double[][] med = new double[2][rounds];
        double[] ratio = new double[rounds];
        long[] buf = new long[100_000];
        for (int round = 0; round < rounds; round++) {
            for (int v = 0; v < 2; v++) {
                try {
                    f.setInt(null, Integer.parseInt(vals[v]));
                } catch (IllegalAccessException x) {
                    throw new IllegalArgumentException("probe.ab: cannot set " + kv[0], x);
                }
                for (int i = 0; i < 5; i++) {
                    run.run();
                }
                long end = System.nanoTime() + 200_000_000L;
                int count = 0;
                while (System.nanoTime() < end && count < buf.length) {
                    long t0 = System.nanoTime();
                    run.run();
                    buf[count++] = System.nanoTime() - t0;
                }
                long[] w = Arrays.copyOf(buf, count);
                Arrays.sort(w);
                med[v][round] = w[count / 2] / 1e6;
            }
            ratio[round] = med[0][round] / med[1][round];
        }
        Arrays.sort(ratio);
        double[] a = med[0].clone();
        double[] b = med[1].clone();
        Arrays.sort(a);
        Arrays.sort(b);
        System.out.printf("ab %s: %s=%.3fms %s=%.3fms speedup_of_%s_over_%s=%.3f (p25 %.3f, p75 %.3f)%n", kv[0], vals[0],
                a[rounds / 2], vals[1], b[rounds / 2], vals[1], vals[0], ratio[rounds / 2], ratio[rounds / 4],
                ratio[rounds * 3 / 4]);
    }
}
