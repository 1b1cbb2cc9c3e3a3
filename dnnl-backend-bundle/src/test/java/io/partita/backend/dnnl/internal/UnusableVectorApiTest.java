package io.partita.backend.dnnl.internal;

import static io.partita.backend.dnnl.internal.Tensors.f32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.partita.graph.BackendInfo;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;

/**
 * In a JVM whose JIT has no vector shape of 128 bits ({@code -XX:MaxVectorSize=8}) the backend
 * claims nothing, says why once at WARN, and lists itself with the reason; the reference backend
 * takes every op. Runs a child JVM, since the flags cannot change inside this one.
 */
class UnusableVectorApiTest {

    @Test
    void claimsNothingAndSaysWhyOnce() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--add-modules", "jdk.incubator.vector", "-XX:MaxVectorSize=8", "-cp",
                System.getProperty("java.class.path"), Child.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("dnnl isa=none: the JIT's widest float vector is 64 bits"), out);
        List<String> parts = out.lines().filter(l -> l.startsWith("partition ")).toList();
        // the reference backend takes each op on its own, in both graphs
        assertEquals(List.of("partition reference 0", "partition reference 1", "partition reference 0",
                "partition reference 1"), parts, out);
        assertEquals(1, out.lines().filter(l -> l.contains("WARN") && l.contains("dnnl backend claims no ops")).count(),
                out);
    }

    /** The child: two graphs partitioned, each partition's backend and ops printed. */
    static final class Child {
        public static void main(String[] args) {
            GraphRuntime rt = GraphRuntime.standalone();
            for (BackendInfo b : rt.backends()) {
                System.out.println(b.id() + " " + b.description());
            }
            for (int round = 0; round < 2; round++) {
                Graph g = rt.createGraph(EngineKind.CPU);
                g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 8, 16), f32(1, 16, 32)).output(f32(2, 8, 32)).build());
                g.add(Op.builder(1, OpKind.ReLU).input(f32(2, 8, 32)).output(f32(3, 8, 32)).build());
                g.finalizeGraph();
                for (Partition part : g.partitions(PartitionPolicy.FUSION)) {
                    System.out.println("partition " + part.backendId() + " "
                            + String.join(",", part.ops().stream().map(o -> String.valueOf(o.id())).toList()));
                }
            }
        }
    }
}
