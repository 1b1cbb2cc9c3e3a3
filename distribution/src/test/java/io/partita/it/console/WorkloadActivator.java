package io.partita.it.console;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.util.tracker.ServiceTracker;

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
 * A test bundle standing for an application deployed beside Partita: it builds, compiles and runs
 * a small MatMul + ReLU graph with a constant weight every 50 ms, so the caches the web console
 * charts see hits (compiled partitions on each compile after the first, the constant weight on
 * each execution).
 */
public final class WorkloadActivator implements BundleActivator {
    private volatile boolean running = true;
    private Thread loop;
    private ServiceTracker<GraphRuntime, GraphRuntime> tracker;

    @Override
    public void start(BundleContext context) {
        tracker = new ServiceTracker<>(context, GraphRuntime.class, null);
        tracker.open();
        loop = new Thread(this::run, "console-it-workload");
        loop.setDaemon(true);
        loop.start();
    }

    private void run() {
        // The weight lives as long as the application, as a model's weights do: the constant cache
        // keys a processed constant by its buffer, so each run after the first is a hit
        Arena weights = Arena.ofShared();
        Tensor weight = Tensor.allocate(LogicalTensor.of(1, DataType.F32, 64, 64).withProperty(PropertyType.CONSTANT),
                Engine.cpu(), weights);
        float[] w = new float[64 * 64];
        for (int i = 0; i < w.length; i++) {
            w[i] = (i % 7 - 3) / 10f;
        }
        weight.copyFrom(w);
        while (running) {
            try {
                GraphRuntime runtime = tracker.waitForService(1000);
                if (runtime != null) {
                    once(runtime, weight);
                }
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // a backend swapped meanwhile: the next round partitions again
                System.err.println("console-it-workload: " + e);
            }
        }
    }

    private static void once(GraphRuntime runtime, Tensor weight) {
        Graph g = runtime.createGraph(EngineKind.CPU);
        LogicalTensor x = LogicalTensor.of(0, DataType.F32, 8, 64);
        LogicalTensor w = LogicalTensor.of(1, DataType.F32, 64, 64).withProperty(PropertyType.CONSTANT);
        LogicalTensor y = LogicalTensor.of(2, DataType.F32, 8, 64);
        LogicalTensor z = LogicalTensor.of(3, DataType.F32, 8, 64);
        g.add(Op.builder(0, OpKind.MatMul).input(x).input(w).output(y).build());
        g.add(Op.builder(1, OpKind.ReLU).input(y).output(z).build());
        g.finalizeGraph();
        Engine cpu = Engine.cpu();
        try (Arena arena = Arena.ofConfined()) {
            java.util.Map<Long, Tensor> values = new java.util.HashMap<>();
            Tensor xt = Tensor.allocate(x, cpu, arena);
            float[] xs = new float[8 * 64];
            java.util.Arrays.fill(xs, 0.5f);
            xt.copyFrom(xs);
            values.put(0L, xt);
            values.put(1L, weight);
            for (Partition p : g.partitions(PartitionPolicy.FUSION)) {
                CompiledPartition cp = p.compile(cpu);
                List<Tensor> in = new ArrayList<>();
                for (LogicalTensor t : cp.inputs()) {
                    in.add(values.get(t.id()));
                }
                List<Tensor> out = new ArrayList<>();
                for (LogicalTensor t : cp.outputs()) {
                    Tensor o = Tensor.allocate(t, cpu, arena);
                    values.put(t.id(), o);
                    out.add(o);
                }
                cp.execute(new Stream(cpu), in, out);
            }
        }
    }

    @Override
    public void stop(BundleContext context) throws InterruptedException {
        running = false;
        loop.interrupt();
        loop.join(5000);
        tracker.close();
    }
}
