package io.partita.benchmarks.probes;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.partita.runtime.threads.WorkerTeam;
import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.ops.CopyPrimitive;
import io.partita.backend.dnnl.internal.ops.LayerNormPrimitive;
import io.partita.backend.dnnl.internal.ops.PoolPrimitive;
import io.partita.backend.dnnl.internal.ops.ReducePrimitive;
import io.partita.backend.dnnl.internal.ops.SoftMaxPrimitive;
import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Tensor;

/**
 * Quick throughput probe (not a test): java ... SingleOpsProbe threads [name prefix]. Medians of
 * repeated runs (CPU time of the thread with 1 thread, wall time otherwise), GB/s moved.
 */
public final class SingleOpsProbe {
    public static void main(String[] args) {
        int threads = Integer.parseInt(args[0]);
        String only = args.length > 1 ? args[1] : "";
        long[] nchw = {64, 128, 28, 28};
        long[] rows = {4096, 1024};
        try (Arena arena = Arena.ofShared(); WorkerTeam pool = new WorkerTeam(threads, "probe")) {
            Engine e = Engine.cpu();
            run(only, "softmax axis1 " + Arrays.toString(nchw), new SoftMaxPrimitive(new SoftMaxPrimitive.Desc(nchw,
                    LogicalTensor.denseStrides(nchw), 1, false, 0, -1, PostOpChain.EMPTY, new int[0])),
                    ins(arena, e, DataType.F32, nchw), outs(arena, e, DataType.F32, nchw), pool);
            run(only, "softmax last " + Arrays.toString(rows), new SoftMaxPrimitive(new SoftMaxPrimitive.Desc(rows,
                    LogicalTensor.denseStrides(rows), 1, false, 0, -1, PostOpChain.EMPTY, new int[0])),
                    ins(arena, e, DataType.F32, rows), outs(arena, e, DataType.F32, rows), pool);
            run(only, "layernorm " + Arrays.toString(rows), new LayerNormPrimitive(new LayerNormPrimitive.Desc(rows,
                    LogicalTensor.denseStrides(rows), 1, 1e-5f, 0, 1, 2, new long[] {1024}, new long[] {1},
                    new long[] {1024}, new long[] {1}, -1, -1)),
                    ins(arena, e, DataType.F32, rows, new long[] {1024}, new long[] {1024}),
                    outs(arena, e, DataType.F32, rows), pool);
            long[] pin = {64, 64, 56, 56};
            long[] pout = {64, 64, 28, 28};
            for (boolean max : new boolean[] {true, false}) {
                run(only, (max ? "maxpool" : "avgpool") + " NCX 3x3/2 " + Arrays.toString(pin), new PoolPrimitive(
                        new PoolPrimitive.Desc(max, false, pin, LogicalTensor.denseStrides(pin), pout,
                                new int[] {1, 3, 3}, new int[] {1, 2, 2}, new int[] {1, 1, 1}, new int[] {0, 1, 1},
                                false, 0, PostOpChain.EMPTY, new int[0])),
                        ins(arena, e, DataType.F32, pin), outs(arena, e, DataType.F32, pout), pool);
            }
            long[] stem = {1, 64, 112, 112}; // ResNet-50's pool after the stem
            long[] stemOut = {1, 64, 56, 56};
            run(only, "maxpool NCX 3x3/2 " + Arrays.toString(stem), new PoolPrimitive(
                    new PoolPrimitive.Desc(true, false, stem, LogicalTensor.denseStrides(stem), stemOut,
                            new int[] {1, 3, 3}, new int[] {1, 2, 2}, new int[] {1, 1, 1}, new int[] {0, 1, 1},
                            false, 0, PostOpChain.EMPTY, new int[0])),
                    ins(arena, e, DataType.F32, stem), outs(arena, e, DataType.F32, stemOut), pool);
            long[] nin = {64, 56, 56, 64};
            long[] nout = {64, 28, 28, 64};
            run(only, "maxpool NXC 3x3/2 " + Arrays.toString(nin), new PoolPrimitive(new PoolPrimitive.Desc(true, true,
                    nin, LogicalTensor.denseStrides(nin), nout, new int[] {1, 3, 3}, new int[] {1, 2, 2},
                    new int[] {1, 1, 1}, new int[] {0, 1, 1}, false, 0, PostOpChain.EMPTY, new int[0])),
                    ins(arena, e, DataType.F32, nin), outs(arena, e, DataType.F32, nout), pool);
            long[] rin = {64, 256, 28, 28};
            run(only, "reducesum axes [2,3] " + Arrays.toString(rin), new ReducePrimitive(new ReducePrimitive.Desc(rin,
                    LogicalTensor.denseStrides(rin), new boolean[] {false, false, true, true}, false, 0,
                    PostOpChain.EMPTY, new int[0])), ins(arena, e, DataType.F32, rin),
                    outs(arena, e, DataType.F32, new long[] {64, 256}), pool);
            run(only, "reducesum axes [1] " + Arrays.toString(rin), new ReducePrimitive(new ReducePrimitive.Desc(rin,
                    LogicalTensor.denseStrides(rin), new boolean[] {false, true, false, false}, false, 0,
                    PostOpChain.EMPTY, new int[0])), ins(arena, e, DataType.F32, rin),
                    outs(arena, e, DataType.F32, new long[] {64, 28, 28}), pool);
            long[] tin = {64, 128, 28, 28};
            long[] tview = {64, 28, 28, 128};
            long[] ts = LogicalTensor.denseStrides(tin);
            run(only, "transpose 0,2,3,1 " + Arrays.toString(tin), new CopyPrimitive(new CopyPrimitive.Desc(List.of(
                    new CopyPrimitive.Piece(0, tview, new long[] {ts[0], ts[2], ts[3], ts[1]}, 0, tview,
                            LogicalTensor.denseStrides(tview))), DataType.F32, DataType.F32)),
                    ins(arena, e, DataType.F32, tin), outs(arena, e, DataType.F32, tview), pool);
            long[] flat = {16L << 20};
            run(only, "typecast f32->bf16 " + Arrays.toString(flat), new CopyPrimitive(new CopyPrimitive.Desc(List.of(
                    new CopyPrimitive.Piece(0, flat, new long[] {1}, 0, flat, new long[] {1})), DataType.F32,
                    DataType.BF16)), ins(arena, e, DataType.F32, flat), outs(arena, e, DataType.BF16, flat), pool);
            run(only, "typecast bf16->f32 " + Arrays.toString(flat), new CopyPrimitive(new CopyPrimitive.Desc(List.of(
                    new CopyPrimitive.Piece(0, flat, new long[] {1}, 0, flat, new long[] {1})), DataType.BF16,
                    DataType.F32)), ins(arena, e, DataType.BF16, flat), outs(arena, e, DataType.F32, flat), pool);
        }
    }

    private static List<Tensor> ins(Arena arena, Engine e, DataType dt, long[]... dims) {
        List<Tensor> r = new ArrayList<>();
        int id = 0;
        for (long[] d : dims) {
            Tensor t = Tensor.allocate(LogicalTensor.of(id++, dt, d), e, arena);
            long n = t.logicalTensor().elementCount();
            double[] v = new double[(int) n];
            for (int i = 0; i < v.length; i++) {
                v[i] = ((i * 2654435761L) % 2001) / 1000.0 - 1;
            }
            t.copyFrom(v);
            r.add(t);
        }
        return r;
    }

    private static List<Tensor> outs(Arena arena, Engine e, DataType dt, long[] dims) {
        return List.of(Tensor.allocate(LogicalTensor.of(100, dt, dims), e, arena));
    }

    private static void run(String only, String name, Primitive p, List<Tensor> in, List<Tensor> out, CpuTeam pool) {
        if (!only.isEmpty() && !name.startsWith(only)) {
            return;
        }
        Invocation inv = new Invocation(in, out, pool, (i, f, b, prod) -> null);
        long bytes = 0;
        for (Tensor t : in) {
            bytes += t.logicalTensor().memSize();
        }
        bytes += out.get(0).logicalTensor().memSize();
        for (int w = 0; w < 5; w++) {
            p.execute(inv);
        }
        int iters = Integer.getInteger("iters", 15);
        long[] t = new long[iters];
        // one thread: CPU time of this thread (the machine is shared; descheduled time is not ours)
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        boolean cpu = pool.threads() == 1;
        for (int i = 0; i < iters; i++) {
            long t0 = cpu ? mx.getCurrentThreadCpuTime() : System.nanoTime();
            p.execute(inv);
            t[i] = (cpu ? mx.getCurrentThreadCpuTime() : System.nanoTime()) - t0;
        }
        Arrays.sort(t);
        double med = t[iters / 2];
        System.out.printf("%-48s median %8.3f ms  %6.2f GB/s%n", name, med / 1e6, bytes / med);
    }
}
