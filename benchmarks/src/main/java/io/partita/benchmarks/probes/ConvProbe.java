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
                Tensor t = Tensor.allocate(lt, e, arena);
                float[] data = new float[(int) lt.elementCount()];
                for (int i = 0; i < data.length; i++) {
                    data[i] = (float) (rnd.nextDouble() * 2 - 1);
                }
                t.copyFrom(data);
                in.add(t);
            }
            List<Tensor> out = List.of(Tensor.allocate(cp.outputs().get(0), e, arena));
            Stream stream = new Stream(e);
            double flops = 2.0 * n * k * c * r * s * oh * ow;
            long warmEnd = System.nanoTime() + 1_000_000_000L;
            int warm = 0;
            while (System.nanoTime() < warmEnd || warm < 20) {
                cp.execute(stream, in, out);
                warm++;
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
                    long t0 = System.nanoTime();
                    cp.execute(stream, in, out);
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
}
