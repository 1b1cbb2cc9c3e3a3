package io.partita.runtime;

import java.util.ArrayList;
import java.util.Comparator;
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
 * (existing, unclaimed, disjoint, convex, and acyclic together with the claims accepted before),
 * gives every unclaimed op its own reference partition, and returns the partitions in topological
 * order.
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
        Contracted contracted = new Contracted();
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
                String refusal = problem == null ? graph.refusal(h.id(), c.opIds()) : null;
                if (refusal != null) {
                    problem = "its compile failed before (" + refusal + ")";
                }
                if (problem == null) {
                    problem = contracted.cycleWitness(c.opIds(), assignments);
                }
                if (problem != null) {
                    LOG.warn("rejected claim '{}' of backend {} on ops {}: {}", c.pattern(), h.id(), c.opIds(), problem);
                    continue;
                }
                claimed.addAll(c.opIds());
                // Sorting by position rather than scanning the whole graph keeps many small claims linear.
                List<Op> ops = new ArrayList<>(c.opIds().size());
                for (Long id : c.opIds()) {
                    ops.add(byId.get(id));
                }
                ops.sort(Comparator.comparingInt(op -> topoIndex.get(op.id())));
                contracted.contract(assignments.size());
                assignments.add(new Assignment(h, ops, c.pattern()));
                h.claimed(ops);
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
        return null;
    }

    /**
     * The op graph with every accepted claim contracted to one node, kept acyclic. Claims that are
     * each convex can still close a cycle together (claims {a, d} and {b, c} on chains a->b and
     * c->d), so each claim is checked against this graph rather than against the op graph alone;
     * before any claim is accepted the check is plain convexity.
     *
     * <p>Nodes are the ops (by topological index) while unclaimed and {@code n + g} for accepted
     * claim {@code g}. {@code pos} is a topological order of the nodes, repaired on every contraction
     * the way Pearce and Kelly's dynamic topological sort repairs it on edge insertion. A path from
     * a claim back into itself only passes nodes positioned between the claim's first and last
     * member, so both searches stay inside that window: a claim costs what it spans, not the graph.
     */
    private final class Contracted {
        private final int n = f.ops().size();
        private final int[][] succ = new int[n][];
        private final int[][] pred = new int[n][];
        /** Claim index by op, -1 while unclaimed. */
        private final int[] group = new int[n];
        private final List<int[]> groupOps = new ArrayList<>();
        /** By node: position, search stamp, first outside op and first claim on the search path. */
        private final int[] pos = new int[2 * n];
        private final int[] mark = new int[2 * n];
        private final int[] via = new int[2 * n];
        private final int[] viaGroup = new int[2 * n];
        private final int[] forward = new int[2 * n];
        private final int[] backward = new int[2 * n];
        private int forwardCount;
        private int backwardCount;
        private int[] members = new int[0];
        private int stamp;

        Contracted() {
            List<Op> ops = f.ops();
            for (int i = 0; i < n; i++) {
                Op op = ops.get(i);
                List<Integer> s = new ArrayList<>();
                for (LogicalTensor t : op.outputs()) {
                    for (Op c : f.consumers().getOrDefault(t.id(), List.of())) {
                        s.add(topoIndex.get(c.id()));
                    }
                }
                List<Integer> p = new ArrayList<>();
                for (LogicalTensor t : op.inputs()) {
                    Op q = f.producers().get(t.id());
                    if (q != null) {
                        p.add(topoIndex.get(q.id()));
                    }
                }
                succ[i] = s.stream().mapToInt(Integer::intValue).toArray();
                pred[i] = p.stream().mapToInt(Integer::intValue).toArray();
                group[i] = -1;
                pos[i] = i;
            }
        }

        private int node(int op) {
            return group[op] < 0 ? op : n + group[op];
        }

        private int[] opsOf(int node) {
            return node < n ? new int[] {node} : groupOps.get(node - n);
        }

        /**
         * Null when contracting the (unclaimed, existing) ops to one node keeps the graph acyclic,
         * else why not. On null, remembers the searches for {@link #contract}.
         */
        String cycleWitness(Set<Long> ids, List<Assignment> accepted) {
            int inClaim = ++stamp;
            int seenForward = ++stamp;
            int seenBackward = ++stamp;
            members = new int[ids.size()];
            int k = 0;
            int lo = Integer.MAX_VALUE;
            int hi = Integer.MIN_VALUE;
            for (Long id : ids) {
                int i = topoIndex.get(id);
                members[k++] = i;
                mark[i] = inClaim;
                lo = Math.min(lo, pos[i]);
                hi = Math.max(hi, pos[i]);
            }
            forwardCount = 0;
            for (int m : members) {
                for (int j : succ[m]) {
                    int v = node(j);
                    if (mark[v] != inClaim && mark[v] != seenForward && pos[v] <= hi) {
                        mark[v] = seenForward;
                        via[v] = j;
                        viaGroup[v] = v < n ? -1 : v - n;
                        forward[forwardCount++] = v;
                    }
                }
            }
            for (int q = 0; q < forwardCount; q++) {
                int u = forward[q];
                for (int o : opsOf(u)) {
                    for (int j : succ[o]) {
                        int v = node(j);
                        if (v == u) {
                            continue;
                        }
                        if (mark[v] == inClaim) {
                            long outside = f.ops().get(via[u]).id();
                            if (viaGroup[u] < 0) {
                                return "not convex: a path between its ops leaves the claim through op " + outside;
                            }
                            Assignment a = accepted.get(viaGroup[u]);
                            return "it would form a cycle with the accepted partition '" + a.pattern() + "' of backend "
                                    + a.backend().id() + " on ops " + a.ops().stream().map(Op::id).toList()
                                    + ": a path leaves the claim through op " + outside
                                    + " and returns to it through that partition";
                        }
                        if (mark[v] != seenForward && pos[v] <= hi) {
                            mark[v] = seenForward;
                            via[v] = via[u];
                            viaGroup[v] = viaGroup[u] >= 0 || v < n ? viaGroup[u] : v - n;
                            forward[forwardCount++] = v;
                        }
                    }
                }
            }
            // Acyclic: the nodes reaching the claim inside the window must end up before it.
            backwardCount = 0;
            for (int m : members) {
                for (int j : pred[m]) {
                    int v = node(j);
                    if (mark[v] != inClaim && mark[v] != seenBackward && pos[v] >= lo) {
                        mark[v] = seenBackward;
                        backward[backwardCount++] = v;
                    }
                }
            }
            for (int q = 0; q < backwardCount; q++) {
                int u = backward[q];
                for (int o : opsOf(u)) {
                    for (int j : pred[o]) {
                        int v = node(j);
                        if (v != u && mark[v] != inClaim && mark[v] != seenBackward && pos[v] >= lo) {
                            mark[v] = seenBackward;
                            backward[backwardCount++] = v;
                        }
                    }
                }
            }
            return null;
        }

        /**
         * Makes the ops of the last checked claim node {@code n + g} and repairs the order: the
         * affected nodes take their own positions again, sorted, those reaching the claim first,
         * then the claim, then those it reaches. Nodes reaching the claim move only earlier and
         * nodes it reaches only later, so every edge leaving the affected set still points forward.
         */
        void contract(int g) {
            int total = backwardCount + members.length + forwardCount;
            int[] slots = new int[total];
            int k = 0;
            for (int q = 0; q < backwardCount; q++) {
                slots[k++] = pos[backward[q]];
            }
            for (int m : members) {
                slots[k++] = pos[m];
            }
            for (int q = 0; q < forwardCount; q++) {
                slots[k++] = pos[forward[q]];
            }
            java.util.Arrays.sort(slots);
            int[] b = byPosition(backward, backwardCount);
            int[] fw = byPosition(forward, forwardCount);
            for (int q = 0; q < b.length; q++) {
                pos[b[q]] = slots[q];
            }
            pos[n + g] = slots[b.length];
            for (int q = 0; q < fw.length; q++) {
                pos[fw[q]] = slots[total - fw.length + q];
            }
            for (int m : members) {
                group[m] = g;
            }
            groupOps.add(members);
            members = new int[0];
        }

        private int[] byPosition(int[] nodes, int count) {
            long[] keyed = new long[count];
            for (int q = 0; q < count; q++) {
                keyed[q] = ((long) pos[nodes[q]] << 32) | nodes[q];
            }
            java.util.Arrays.sort(keyed);
            int[] out = new int[count];
            for (int q = 0; q < count; q++) {
                out[q] = (int) keyed[q];
            }
            return out;
        }
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
            // Every accepted claim was checked against the contracted graph; reaching here is a runtime
            // bug, not a user error.
            throw new IllegalStateException("partitions form a cycle; claims " + assignments);
        }
        return result;
    }
}
