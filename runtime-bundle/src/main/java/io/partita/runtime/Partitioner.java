package io.partita.runtime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.Claim;

/**
 * Offers a finalized graph to the backends, highest rank first, validates their claims
 * (existing, unclaimed, disjoint, convex), gives every unclaimed op its own reference partition,
 * and returns the partitions in topological order.
 */
final class Partitioner {
    private static final Logger LOG = LoggerFactory.getLogger(Partitioner.class);

    private final RuntimeCore runtime;
    private final GraphImpl graph;
    private final GraphImpl.Finalized f;
    private final Map<Long, Op> byId = new LinkedHashMap<>();
    private final Map<Long, Integer> topoIndex = new HashMap<>();

    Partitioner(RuntimeCore runtime, GraphImpl graph, GraphImpl.Finalized f) {
        this.runtime = runtime;
        this.graph = graph;
        this.f = f;
        int i = 0;
        for (Op op : f.ops()) {
            byId.put(op.id(), op);
            topoIndex.put(op.id(), i++);
        }
    }

    /** A validated claim and the backend that made it. */
    private record Assignment(BackendHandle backend, List<Op> ops, String pattern) {
    }

    List<Partition> partition(PartitionPolicy policy) {
        Set<Long> claimed = new HashSet<>();
        List<Assignment> assignments = new ArrayList<>();
        for (BackendHandle h : runtime.activeBackends()) {
            if (h.backend() == runtime.referenceHandle().backend()
                    || !h.backend().engineKinds().contains(graph.engineKind())) {
                continue;
            }
            List<Claim> claims;
            try {
                claims = h.backend().claim(new GraphViewImpl(graph, f, byId, Set.copyOf(claimed)), policy);
            } catch (RuntimeException e) {
                LOG.warn("backend {} failed while claiming ops; it gets none of this graph", h.id(), e);
                continue;
            }
            for (Claim c : claims == null ? List.<Claim>of() : claims) {
                String problem = check(c, claimed, policy);
                if (problem != null) {
                    LOG.warn("rejected claim '{}' of backend {} on ops {}: {}", c.pattern(), h.id(), c.opIds(), problem);
                    continue;
                }
                claimed.addAll(c.opIds());
                List<Op> ops = new ArrayList<>();
                for (Op op : f.ops()) {
                    if (c.opIds().contains(op.id())) {
                        ops.add(op);
                    }
                }
                assignments.add(new Assignment(h, ops, c.pattern()));
            }
        }
        BackendHandle fallback = runtime.fallbackFor(graph.engineKind());
        for (Op op : f.ops()) {
            if (!claimed.contains(op.id())) {
                assignments.add(new Assignment(fallback, List.of(op), "single_op"));
            }
        }
        return order(assignments);
    }

    /** Null when the claim is acceptable, else why not. */
    private String check(Claim c, Set<Long> claimed, PartitionPolicy policy) {
        for (Long id : c.opIds()) {
            if (!byId.containsKey(id)) {
                return "op " + id + " is not in the graph";
            }
            if (claimed.contains(id)) {
                return "op " + id + " is claimed already";
            }
        }
        if (policy == PartitionPolicy.DEBUG && c.opIds().size() > 1) {
            return "the DEBUG policy allows one op per partition";
        }
        Long path = nonConvexWitness(c.opIds());
        if (path != null) {
            return "not convex: a path between its ops leaves the claim through op " + path;
        }
        return null;
    }

    /**
     * An op outside the set that lies on a path between two ops of the set, or null when the set
     * is convex. Searches forward from the set's outside successors.
     */
    private Long nonConvexWitness(Set<Long> set) {
        Deque<Op> work = new ArrayDeque<>();
        Map<Long, Long> firstOutside = new HashMap<>();
        for (Long id : set) {
            for (LogicalTensor t : byId.get(id).outputs()) {
                for (Op c : f.consumers().getOrDefault(t.id(), List.of())) {
                    if (!set.contains(c.id()) && !firstOutside.containsKey(c.id())) {
                        firstOutside.put(c.id(), c.id());
                        work.add(c);
                    }
                }
            }
        }
        while (!work.isEmpty()) {
            Op op = work.poll();
            for (LogicalTensor t : op.outputs()) {
                for (Op c : f.consumers().getOrDefault(t.id(), List.of())) {
                    if (set.contains(c.id())) {
                        return firstOutside.get(op.id());
                    }
                    if (!firstOutside.containsKey(c.id())) {
                        firstOutside.put(c.id(), firstOutside.get(op.id()));
                        work.add(c);
                    }
                }
            }
        }
        return null;
    }

    /** Topological order of the partitions; ties broken by the position of their first op. */
    private List<Partition> order(List<Assignment> assignments) {
        Map<Long, Integer> partOfOp = new HashMap<>();
        for (int i = 0; i < assignments.size(); i++) {
            for (Op op : assignments.get(i).ops()) {
                partOfOp.put(op.id(), i);
            }
        }
        int n = assignments.size();
        List<Set<Integer>> succ = new ArrayList<>();
        int[] indegree = new int[n];
        for (int i = 0; i < n; i++) {
            succ.add(new HashSet<>());
        }
        for (int i = 0; i < n; i++) {
            for (Op op : assignments.get(i).ops()) {
                for (LogicalTensor t : op.inputs()) {
                    Op p = f.producers().get(t.id());
                    if (p != null) {
                        int j = partOfOp.get(p.id());
                        if (j != i && succ.get(j).add(i)) {
                            indegree[i]++;
                        }
                    }
                }
            }
        }
        int[] firstOp = new int[n];
        for (int i = 0; i < n; i++) {
            firstOp[i] = topoIndex.get(assignments.get(i).ops().get(0).id());
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>(Comparator.comparingInt(i -> firstOp[i]));
        for (int i = 0; i < n; i++) {
            if (indegree[i] == 0) {
                ready.add(i);
            }
        }
        List<Partition> result = new ArrayList<>(n);
        long nextId = 0;
        while (!ready.isEmpty()) {
            int i = ready.poll();
            Assignment a = assignments.get(i);
            result.add(new PartitionImpl(nextId++, graph, f, a.backend(), a.pattern(), a.ops()));
            for (int s : succ.get(i)) {
                if (--indegree[s] == 0) {
                    ready.add(s);
                }
            }
        }
        if (result.size() != n) {
            // Convex claims cannot form a cycle; reaching here is a runtime bug, not a user error.
            throw new IllegalStateException("partitions form a cycle; claims " + assignments);
        }
        return result;
    }
}
