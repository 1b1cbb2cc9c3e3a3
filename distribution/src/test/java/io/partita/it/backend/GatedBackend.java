package io.partita.it.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

import io.partita.graph.EngineKind;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.spi.Backend;
import io.partita.spi.Claim;
import io.partita.spi.CompileRequest;
import io.partita.spi.GraphView;
import io.partita.spi.Kernel;

/**
 * A backend installed as its own bundle by the hot-swap test: claims ReLU ops and computes them
 * itself. When the test registers {@link CountDownLatch} services named {@code entered} and
 * {@code release}, an execution signals the first and waits for the second, so the test can stop
 * the bundle while an execution is in flight.
 */
public final class GatedBackend implements Backend {
    private final BundleContext context;

    public GatedBackend(BundleContext context) {
        this.context = context;
    }

    @Override
    public String id() {
        return "gated";
    }

    @Override
    public Set<EngineKind> engineKinds() {
        return Set.of(EngineKind.CPU);
    }

    @Override
    public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        List<Claim> claims = new ArrayList<>();
        for (Op op : graph.ops()) {
            if (op.kind() == OpKind.ReLU && !graph.isClaimed(op.id())) {
                claims.add(Claim.of("gated_relu", op.id()));
            }
        }
        return claims;
    }

    @Override
    public Kernel compile(CompileRequest request) {
        return (Stream stream, List<Tensor> inputs, List<Tensor> outputs) -> {
            latch("entered").ifPresent(CountDownLatch::countDown);
            latch("release").ifPresent(l -> {
                try {
                    l.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            float[] x = inputs.get(0).toFloatArray();
            for (int i = 0; i < x.length; i++) {
                x[i] = Math.max(x[i], 0);
            }
            outputs.get(0).copyFrom(x);
        };
    }

    private java.util.Optional<CountDownLatch> latch(String name) {
        try {
            var refs = context.getServiceReferences(CountDownLatch.class, "(partita.test.latch=" + name + ")");
            for (ServiceReference<CountDownLatch> r : refs) {
                return java.util.Optional.ofNullable(context.getService(r));
            }
        } catch (org.osgi.framework.InvalidSyntaxException | IllegalStateException e) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.empty();
    }
}
