package io.partita.gpu.internal.plan;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.partita.graph.Op;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.Claim;
import io.partita.spi.GraphView;

/**
 * Claims for the gpu engine. With the FUSION policy, when no other backend claimed an op and
 * every op is one the engine runs, the whole graph becomes one partition: its intermediates then stay in device
 * memory and only graph inputs and outputs cross to and from the host. Otherwise each kernel group
 * ({@link Groups}: a MatMul, Convolution or elementwise op with its chain of elementwise post-ops,
 * or a single op) is a partition of its own. The DEBUG policy claims single ops.
 */
public final class Claims {
    private Claims() {
    }

    public static List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        boolean fuse = policy != PartitionPolicy.DEBUG;
        Groups.View view = new Groups.View() {
            @Override
            public List<Op> ops() {
                return graph.ops();
            }

            @Override
            public boolean available(Op op) {
                return !graph.isClaimed(op.id()) && Support.supports(op);
            }

            @Override
            public boolean leaves(long tensorId) {
                return graph.isGraphOutput(tensorId);
            }

            @Override
            public List<Op> consumers(long tensorId) {
                return graph.consumers(tensorId);
            }
        };
        List<Groups.Group> groups = Groups.split(view, fuse);
        // only a graph nobody else claimed from: a partial one could make the union non-convex
        boolean everything = graph.ops().stream().allMatch(op -> !graph.isClaimed(op.id()) && Support.supports(op));
        if (fuse && everything && groups.size() > 1) {
            Set<Long> ids = new LinkedHashSet<>();
            groups.forEach(g -> g.ops().forEach(op -> ids.add(op.id())));
            return List.of(new Claim(ids, "graph_of_" + groups.size() + "_kernels"));
        }
        List<Claim> claims = new ArrayList<>();
        for (Groups.Group g : groups) {
            Set<Long> ids = new LinkedHashSet<>();
            g.ops().forEach(op -> ids.add(op.id()));
            claims.add(new Claim(ids, g.name()));
        }
        return claims;
    }
}
