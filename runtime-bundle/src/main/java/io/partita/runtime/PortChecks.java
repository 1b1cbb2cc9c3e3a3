package io.partita.runtime;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;

/**
 * Matching user-supplied tensor descriptions to a partition's ports, and the consistency rules
 * between graph build, compilation and execution (seed 004's tables).
 */
final class PortChecks {
    private PortChecks() {
    }

    /**
     * Orders {@code given} by the ports' ids.
     *
     * @param required whether every port must be given (inputs) or may be left out (outputs)
     */
    static <T> List<T> matchPorts(String what, List<LogicalTensor> ports, List<T> given, Function<T, Long> idOf,
            boolean required, Function<LogicalTensor, T> whenMissing) {
        if (inPortOrder(ports, given, idOf)) {
            // the usual call: nothing to look up (two maps per execution cost more than small kernels);
            // a copy, so a list the caller changes later cannot reach the kernel
            return List.copyOf(given);
        }
        Map<Long, T> byId = new LinkedHashMap<>();
        for (T t : given) {
            if (t == null) {
                throw new InvalidArgumentException(what + ": a null entry was given");
            }
            long id = idOf.apply(t);
            if (byId.put(id, t) != null) {
                throw new InvalidArgumentException(what + ": tensor " + id + " is given twice");
            }
        }
        Set<Long> portIds = new HashSet<>();
        List<T> ordered = new ArrayList<>(ports.size());
        for (LogicalTensor p : ports) {
            portIds.add(p.id());
            T t = byId.get(p.id());
            if (t == null) {
                if (required) {
                    throw new InvalidArgumentException(what + ": tensor " + p.id() + " (" + p + ") is missing; expected "
                            + ids(ports));
                }
                t = whenMissing.apply(p);
            }
            ordered.add(t);
        }
        for (Long id : byId.keySet()) {
            if (!portIds.contains(id)) {
                throw new InvalidArgumentException(what + ": tensor " + id + " is not a port of this partition; expected "
                        + ids(ports));
            }
        }
        return ordered;
    }

    /** Whether {@code given} holds exactly the ports' tensors, in the ports' order (port ids are distinct). */
    private static <T> boolean inPortOrder(List<LogicalTensor> ports, List<T> given, Function<T, Long> idOf) {
        if (given.size() != ports.size()) {
            return false;
        }
        for (int i = 0; i < ports.size(); i++) {
            T t = given.get(i);
            if (t == null || idOf.apply(t) != ports.get(i).id()) {
                return false;
            }
        }
        return true;
    }

    private static List<Long> ids(List<LogicalTensor> ports) {
        return ports.stream().map(LogicalTensor::id).toList();
    }

    /**
     * A compile-time input against its graph-build description (seed 004 §3.3): same data type and
     * rank; a dim known at build keeps its value; a dim dynamic at build stays dynamic; a dim
     * unknown at build must now be known, not dynamic: only what the graph marked dynamic may be
     * (backends decided what to claim from the graph's marks). Layout any/undef resolves to dense
     * strided; explicit strides of a tensor with dynamic dims must be all DYNAMIC_DIM or dense.
     */
    static LogicalTensor compileInput(LogicalTensor built, LogicalTensor given) {
        String who = "compile input tensor " + given.id();
        if (built.dataType() != given.dataType()) {
            throw new InvalidArgumentException(who + " has data type " + given.dataType() + " but the graph declares "
                    + built.dataType());
        }
        long[] g = given.dims();
        if (g == null) {
            throw new InvalidArgumentException(who + " has unknown rank; compilation needs its dims (or DYNAMIC_DIM)");
        }
        long[] b = built.dims();
        if (b != null && b.length != g.length) {
            throw new InvalidArgumentException(who + " has rank " + g.length + " " + dimsToString(g)
                    + " but the graph declares rank " + b.length + " " + dimsToString(b));
        }
        for (int i = 0; i < g.length; i++) {
            long bi = b == null ? UNKNOWN_DIM : b[i];
            if (g[i] == UNKNOWN_DIM) {
                throw new InvalidArgumentException(who + " " + dimsToString(g) + ": dim " + i
                        + " is unknown; compilation needs a value or DYNAMIC_DIM");
            }
            if (bi == DYNAMIC_DIM && g[i] != DYNAMIC_DIM) {
                throw new InvalidArgumentException(who + " " + dimsToString(g) + ": dim " + i
                        + " was built as DYNAMIC_DIM " + dimsToString(b) + " and must stay dynamic at compilation");
            }
            if (bi == UNKNOWN_DIM && g[i] == DYNAMIC_DIM) {
                throw new InvalidArgumentException(who + " " + dimsToString(g) + ": dim " + i
                        + " was unknown at graph build " + dimsToString(b)
                        + " and cannot become DYNAMIC_DIM at compilation; give its value, or build the graph with"
                        + " DYNAMIC_DIM there");
            }
            if (bi >= 0 && g[i] == DYNAMIC_DIM) {
                throw new InvalidArgumentException(who + " " + dimsToString(g) + ": dim " + i + " was built as " + bi
                        + " " + dimsToString(b) + "; a dim known at graph build cannot become dynamic");
            }
            if (bi >= 0 && g[i] != bi) {
                throw new InvalidArgumentException(who + " " + dimsToString(g) + ": dim " + i + " is " + g[i]
                        + " but the graph was built with " + bi + " " + dimsToString(b));
            }
        }
        LogicalTensor r = given;
        if (given.layoutType() == LayoutType.ANY || given.layoutType() == LayoutType.UNDEF) {
            r = given.withLayout(LayoutType.STRIDED);
        }
        if (r.hasDynamicDim() && r.layoutType() == LayoutType.STRIDED) {
            long[] dense = LogicalTensor.denseStrides(g);
            // all DYNAMIC_DIM is the seed's spelling of "dense, whatever the dims turn out to be"
            int bad = allDynamic(r.strides()) ? -1 : firstNonDense(g, r.strides(), dense);
            if (bad >= 0) {
                throw new InvalidArgumentException(who + " " + dimsToString(g) + " has explicit strides "
                        + dimsToString(r.strides()) + ": the stride of dim " + bad + " is "
                        + dimToString(r.strides()[bad]) + " where dense is " + dimToString(dense[bad])
                        + "; a tensor with dynamic dims must be dense: expected strides " + dimsToString(dense)
                        + " or all DYNAMIC_DIM");
            }
            r = r.withStrides(dense);
        }
        if (built.property() != given.property() && given.property() == io.partita.graph.PropertyType.UNDEF) {
            r = r.withProperty(built.property());
        }
        return r;
    }

    /**
     * Explicit strides of a tensor with dynamic dims against its dense strides: equal where the
     * dense stride is known (dims of size 0 or 1 aside, where any stride addresses the same
     * elements), a placeholder (either spelling) where it depends on a dynamic dim.
     *
     * @return the first dim whose stride is not dense, or -1
     */
    private static int firstNonDense(long[] dims, long[] strides, long[] dense) {
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] == 0 || dims[i] == 1) {
                continue;
            }
            boolean ok = dense[i] < 0 ? strides[i] == DYNAMIC_DIM || strides[i] == UNKNOWN_DIM : strides[i] == dense[i];
            if (!ok) {
                return i;
            }
        }
        return -1;
    }

    private static String dimToString(long d) {
        String s = dimsToString(new long[] {d});
        return s.substring(1, s.length() - 1);
    }

    private static boolean allDynamic(long[] strides) {
        for (long s : strides) {
            if (s != DYNAMIC_DIM) {
                return false;
            }
        }
        return true;
    }

    /**
     * An execution-time (or inferOutputs) input against its compiled description: dims concrete,
     * compiled concrete dims unchanged, data type equal, and the layout the kernel was compiled for.
     */
    static void executionInput(String what, LogicalTensor compiled, LogicalTensor given) {
        String who = what + " tensor " + given.id();
        if (compiled.dataType() != given.dataType()) {
            throw new InvalidArgumentException(who + " has data type " + given.dataType()
                    + " but the partition was compiled for " + compiled.dataType());
        }
        long[] g = given.dims();
        long[] c = compiled.dims();
        if (g == null || g.length != c.length) {
            throw new InvalidArgumentException(who + " has dims " + dimsToString(g) + " but the partition was compiled for "
                    + dimsToString(c));
        }
        for (int i = 0; i < g.length; i++) {
            if (g[i] < 0) {
                throw new InvalidArgumentException(who + " " + dimsToString(g) + ": dim " + i
                        + " must be concrete at execution");
            }
            if (c[i] >= 0 && c[i] != g[i]) {
                throw new InvalidArgumentException(who + " " + dimsToString(g) + ": dim " + i + " is " + g[i]
                        + " but the partition was compiled for " + c[i] + " " + dimsToString(c)
                        + " (only DYNAMIC_DIM dims may change)");
            }
        }
    }

    /** The layout of an execution tensor must be the compiled one (dense for dynamic dims). */
    static void executionLayout(String what, LogicalTensor compiled, LogicalTensor given) {
        if (given.layoutType() != LayoutType.STRIDED) {
            throw new InvalidArgumentException(what + " tensor " + given.id() + " has layout " + given.layoutType()
                    + "; expected strided");
        }
        long[] expected = compiled.hasDynamicDim() || compiled.layoutType() != LayoutType.STRIDED
                ? LogicalTensor.denseStrides(given.dims()) : compiled.strides();
        if (!sameStridesIgnoringUnitDims(given.dims(), given.strides(), expected)) {
            throw new InvalidArgumentException(what + " tensor " + given.id() + " has strides "
                    + dimsToString(given.strides()) + " but the partition was compiled for " + dimsToString(expected));
        }
    }

    private static boolean sameStridesIgnoringUnitDims(long[] dims, long[] a, long[] b) {
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] > 1 && a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }
}
