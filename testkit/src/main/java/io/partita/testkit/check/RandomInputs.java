package io.partita.testkit.check;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.partita.graph.DataType;
import io.partita.graph.ElementCodec;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.MemoryLimitException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.Port;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.graph.OpSchema;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;

/**
 * Seeded random values for graph inputs, drawn from what each consuming op port expects (a
 * variance positive, a divisor away from zero, a target shape equal to the op's declared output).
 * The same seed gives the same values.
 */
public final class RandomInputs {
    private RandomInputs() {
    }

    /**
     * Allocates and fills every input of a finalized graph, after checking that they fit in the
     * runtime's memory limit together.
     *
     * @throws MemoryLimitException naming the largest input when they do not, before anything is allocated
     */
    public static Map<Long, Tensor> forGraph(GraphRuntime runtime, Graph graph, Engine engine, Arena arena, long seed) {
        return forGraph(runtime.opSchemas(), graph, engine, arena, seed, runtime.memoryLimit());
    }

    /**
     * Allocates and fills every input of a finalized graph, bound by no memory limit: for graphs
     * known to be small (tests); {@link #forGraph(GraphRuntime, Graph, Engine, Arena, long)}
     * checks the runtime's limit first.
     */
    public static Map<Long, Tensor> forGraph(OpSchemaRegistry schemas, Graph graph, Engine engine, Arena arena, long seed) {
        return forGraph(schemas, graph, engine, arena, seed, Long.MAX_VALUE);
    }

    /**
     * Like {@link #forGraph(GraphRuntime, Graph, Engine, Arena, long)}, but the inputs in
     * {@code given} (a model's initializers, say) are taken as they are and only the others are
     * drawn, so no value is invented for a parameter the model fixes.
     */
    public static Map<Long, Tensor> forGraph(GraphRuntime runtime, Graph graph, Engine engine, Arena arena, long seed,
            Map<Long, Tensor> given) {
        Map<Long, Tensor> out = new LinkedHashMap<>();
        Map<Long, Tensor> drawn = forGraph(runtime.opSchemas(), graph, engine, arena, seed, runtime.memoryLimit(),
                given.keySet());
        for (LogicalTensor t : graph.inputs()) {
            out.put(t.id(), given.containsKey(t.id()) ? given.get(t.id()) : drawn.get(t.id()));
        }
        return out;
    }

    private static Map<Long, Tensor> forGraph(OpSchemaRegistry schemas, Graph graph, Engine engine, Arena arena,
            long seed, long memoryLimit) {
        return forGraph(schemas, graph, engine, arena, seed, memoryLimit, java.util.Set.of());
    }

    private static Map<Long, Tensor> forGraph(OpSchemaRegistry schemas, Graph graph, Engine engine, Arena arena,
            long seed, long memoryLimit, java.util.Set<Long> skip) {
        List<LogicalTensor> lts = new ArrayList<>();
        for (LogicalTensor t : graph.inputs()) {
            if (skip.contains(t.id())) {
                continue;
            }
            // Inputs left as any/undef get the layout compilation gives them: dense strided.
            lts.add(t.layoutType() == LayoutType.ANY || t.layoutType() == LayoutType.UNDEF
                    ? t.withLayout(LayoutType.STRIDED) : t);
        }
        checkMemory(lts, memoryLimit);
        Map<Long, Tensor> out = new LinkedHashMap<>();
        for (LogicalTensor lt : lts) {
            Tensor tensor = Tensor.allocate(lt, engine, arena);
            fill(schemas, tensor, graph.ops(), seed ^ (lt.id() * 0x9E3779B97F4A7C15L));
            out.put(lt.id(), tensor);
        }
        return out;
    }

    /** Refuses inputs that do not fit in the limit together, naming the largest. */
    private static void checkMemory(List<LogicalTensor> inputs, long limit) {
        long total = 0;
        LogicalTensor largest = null;
        for (LogicalTensor t : inputs) {
            if (!t.isConcrete() || t.hasDynamicDim()) {
                continue; // Tensor.allocate names it
            }
            long size = t.memSize();
            if (largest == null || size > largest.memSize()) {
                largest = t;
            }
            total = total + size < 0 ? Long.MAX_VALUE : total + size;
        }
        if (largest == null || total <= limit) {
            return;
        }
        String item = "graph input " + describe(largest);
        if (largest.memSize() > limit) {
            throw new MemoryLimitException(item, largest.memSize(), limit);
        }
        throw new MemoryLimitException("the graph inputs", total, limit, "the graph inputs need "
                + MemoryLimitException.formatBytes(total) + " together (the largest is " + item + " with "
                + MemoryLimitException.formatBytes(largest.memSize()) + "); the memory limit is "
                + MemoryLimitException.formatBytes(limit) + " (" + MemoryLimitException.HOW_TO_RAISE + ")");
    }

    private static String describe(LogicalTensor t) {
        return "tensor " + t.id() + " " + t.dataType() + LogicalTensor.dimsToString(t.dims());
    }

    /** Fills one tensor, choosing the value domain from the ops that consume it. */
    public static void fill(OpSchemaRegistry schemas, Tensor tensor, List<Op> ops, long seed) {
        LogicalTensor lt = tensor.logicalTensor();
        ValueDomain domain = ValueDomain.ANY;
        Op shapeConsumer = null;
        for (Op op : ops) {
            OpSchema schema = schemas.find(op.kind()).orElse(null);
            for (int i = 0; i < op.inputs().size(); i++) {
                if (op.input(i).id() != lt.id() || schema == null) {
                    continue;
                }
                Port p = schema.inputPort(i);
                ValueDomain d = p == null ? ValueDomain.ANY : p.domain();
                if (d == ValueDomain.SHAPE || d == ValueDomain.AXES) {
                    shapeConsumer = op;
                }
                domain = stronger(domain, d);
            }
        }
        long indexBound = gatherIndexBound(lt, ops);
        if (indexBound == 0) {
            indexBound = unpoolIndexBound(lt, ops);
        }
        if (indexBound > 0) {
            // Indices of a gather: seeded values in range, so random inputs never index outside the data.
            SplittableRandom r = new SplittableRandom(seed);
            double[] v = new double[Math.toIntExact(lt.elementCount())];
            for (int i = 0; i < v.length; i++) {
                v[i] = r.nextLong(indexBound);
            }
            tensor.copyFrom(v);
        } else if (domain == ValueDomain.SHAPE || domain == ValueDomain.AXES) {
            tensor.copyFrom(domain == ValueDomain.SHAPE ? shapeValues(lt, shapeConsumer) : reducedAxes(lt, shapeConsumer));
        } else {
            fillRandom(tensor, domain, seed);
        }
    }

    /**
     * The smallest data dim along the gather axis over the PartitaGather / PartitaGatherElements ops
     * that read {@code lt} as their indices, or 0 when none does (or a dim is not concrete).
     */
    private static long gatherIndexBound(LogicalTensor lt, List<Op> ops) {
        long bound = Long.MAX_VALUE;
        for (Op op : ops) {
            if ((op.kind() == OpKind.PartitaGather || op.kind() == OpKind.PartitaGatherElements)
                    && op.inputs().size() > 1 && op.input(1).id() == lt.id()) {
                long[] d = op.input(0).dims();
                if (d == null || d.length == 0) {
                    return 0;
                }
                long n = d[(int) Math.floorMod(op.longAttr("axis"), d.length)];
                if (n <= 0) {
                    return 0;
                }
                bound = Math.min(bound, n);
            }
        }
        return bound == Long.MAX_VALUE ? 0 : bound;
    }

    /**
     * The element count of the unpooled output of a PartitaMaxUnpool reading {@code lt} as its
     * indices (flat indices into that output), or 0.
     */
    private static long unpoolIndexBound(LogicalTensor lt, List<Op> ops) {
        for (Op op : ops) {
            if (op.kind() == OpKind.PartitaMaxUnpool && op.inputs().size() > 1 && op.input(1).id() == lt.id()) {
                long[] out = op.output(0).dims();
                if (out == null || !LogicalTensor.of(op.output(0).id(), DataType.F32, out).isConcrete()) {
                    out = unpooledDims(op);
                }
                long n = 1;
                for (long d : out == null ? new long[] {0} : out) {
                    n *= d;
                }
                return Math.max(n, 0);
            }
        }
        return 0;
    }

    /** MaxUnpool's default output dims: (in - 1) * stride - pads + kernel per spatial dim; null when unknown. */
    private static long[] unpooledDims(Op op) {
        long[] src = op.input(0).dims();
        if (src == null || !LogicalTensor.of(op.input(0).id(), DataType.F32, src).isConcrete()) {
            return null;
        }
        long[] k = op.longsAttr("kernel");
        long[] s = op.longsAttr("strides");
        long[] pb = op.longsAttr("pads_begin");
        long[] pe = op.longsAttr("pads_end");
        long[] out = src.clone();
        for (int i = 0; i < k.length && i + 2 < out.length; i++) {
            out[i + 2] = (src[i + 2] - 1) * (s.length == 0 ? 1 : s[i]) - (pb.length == 0 ? 0 : pb[i])
                    - (pe.length == 0 ? 0 : pe[i]) + k[i];
        }
        return out;
    }

    /**
     * Draws seeded values in logical row-major order straight into the tensor's memory: no array
     * of the whole tensor on the heap.
     */
    private static void fillRandom(Tensor tensor, ValueDomain domain, long seed) {
        LogicalTensor lt = tensor.logicalTensor();
        if (lt.layoutType() != LayoutType.STRIDED) {
            throw new InvalidArgumentException("tensor " + lt.id() + " has layout " + lt.layoutType()
                    + "; random values are written to strided tensors only");
        }
        if (lt.stridesMayAlias()) {
            throw new InvalidArgumentException(lt + ": its strides let distinct elements share memory; cannot write"
                    + " elements to it");
        }
        DataType dt = lt.dataType();
        MemorySegment seg = tensor.data();
        SplittableRandom r = new SplittableRandom(seed);
        long n = lt.elementCount();
        if (n == 0) {
            return;
        }
        if (lt.isDense()) {
            for (long i = 0; i < n; i++) {
                ElementCodec.set(dt, seg, i, draw(r, dt, domain));
            }
            return;
        }
        long[] dims = lt.dims();
        long[] strides = lt.strides();
        long[] idx = new long[dims.length];
        long offset = 0;
        for (long i = 0; i < n; i++) {
            ElementCodec.set(dt, seg, offset, draw(r, dt, domain));
            for (int d = dims.length - 1; d >= 0; d--) {
                offset += strides[d];
                if (++idx[d] < dims[d]) {
                    break;
                }
                offset -= idx[d] * strides[d];
                idx[d] = 0;
            }
        }
    }

    private static ValueDomain stronger(ValueDomain a, ValueDomain b) {
        return b.ordinal() > a.ordinal() ? b : a;
    }

    /** Values of a shape-deciding input: what the consuming op's declared output needs. */
    private static double[] shapeValues(LogicalTensor lt, Op op) {
        long[] target = op.output(0).dims();
        long[] src = op.input(0).dims();
        if (op.kind() == OpKind.PartitaTopK) {
            return new double[] {topK(lt, op, src, target)};
        }
        boolean declared = target != null && LogicalTensor.of(lt.id(), lt.dataType(), target).isConcrete();
        if (!declared && (op.kind() == OpKind.PartitaSlice || op.kind() == OpKind.PartitaPad)) {
            return sliceOrPadParameter(lt, op);
        }
        if (op.kind() == OpKind.PartitaResize && src != null) {
            return resizeParameter(lt, op, src, declared ? target : src);
        }
        if (!declared && src != null) {
            double[] v = undeclaredShapeParameter(lt, op, src);
            if (v != null) {
                return v;
            }
        }
        if (!declared && op.kind() == OpKind.PartitaExpand && src != null) {
            // the source's own dims (ones in front up to the shape's length): an expansion that always fits
            double[] v = new double[Math.toIntExact(lt.elementCount())];
            java.util.Arrays.fill(v, 1);
            for (int i = 0; i < Math.min(v.length, src.length); i++) {
                v[v.length - 1 - i] = src[src.length - 1 - i];
            }
            return v;
        }
        if (target == null || !LogicalTensor.of(lt.id(), lt.dataType(), target).isConcrete()) {
            throw new UnsupportedFeatureException("cannot choose values for shape input tensor " + lt.id() + " of "
                    + op.describe() + ": its output dims are not declared");
        }
        if (op.kind() == OpKind.DynamicTranspose) {
            return permutationFor(lt, op, src, target);
        }
        if (op.kind() == OpKind.Interpolate || op.kind() == OpKind.InterpolateBackward) {
            // sizes are the spatial dims of the resized tensor (dst, or diff_dst for the backward op)
            long[] resized = op.kind() == OpKind.Interpolate ? target : op.input(1).dims();
            boolean channelsLast = !op.hasAttr("data_format") || "NXC".equals(op.stringAttr("data_format"));
            int from = channelsLast ? 1 : 2;
            int to = channelsLast ? resized.length - 1 : resized.length;
            target = java.util.Arrays.copyOfRange(resized, from, to);
        }
        double[] v = new double[target.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = target[i];
        }
        return v;
    }

    /**
     * A TopK's k: the declared output dim along the axis when there is one; otherwise half the
     * axis (at least 1), a k every axis length admits, so a model whose outputs depend on k still runs.
     */
    private static long topK(LogicalTensor lt, Op op, long[] src, long[] target) {
        if (src == null || src.length == 0) {
            throw new UnsupportedFeatureException("cannot choose k (tensor " + lt.id() + ") of " + op.describe()
                    + ": its input dims are not declared");
        }
        int axis = (int) Math.floorMod(op.longAttr("axis"), src.length);
        if (target != null && target.length == src.length && target[axis] >= 0) {
            return target[axis];
        }
        if (src[axis] < 0) {
            throw new UnsupportedFeatureException("cannot choose k (tensor " + lt.id() + ") of " + op.describe()
                    + ": neither its input's nor its output's dim " + axis + " is declared");
        }
        return Math.max(1, src[axis] / 2);
    }

    /**
     * A Slice or Pad parameter known only at execution whose output nothing declares: values that
     * always fit, whatever the data's dims: slices take whole axes (starts 0, ends past the end,
     * steps 1) and pads add one element on each side; axes are the first ones, in order.
     */
    private static double[] sliceOrPadParameter(LogicalTensor lt, Op op) {
        int port = 0;
        while (op.input(port).id() != lt.id()) {
            port++;
        }
        int n = Math.toIntExact(lt.elementCount());
        double[] v = new double[n];
        boolean axes = port == 3; // both ops take their axes as input 3
        for (int i = 0; i < n; i++) {
            if (axes) {
                v[i] = i;
            } else if (op.kind() == OpKind.PartitaSlice) {
                v[i] = switch (port) {
                    case 2 -> Integer.MAX_VALUE; // ends: clamped to each axis' length
                    case 4 -> 1; // steps
                    default -> 0; // starts
                };
            } else {
                v[i] = 1; // pads
            }
        }
        return v;
    }

    /** The axes a reduction's declared output drops (or keeps as 1) from its input. */
    private static double[] reducedAxes(LogicalTensor lt, Op op) {
        if (op.kind() == OpKind.PartitaCumSum && op.input(0).ndims() > 0) {
            return new double[] {op.input(0).ndims() - 1}; // a running sum along the last axis
        }
        long[] in = op.input(0).dims();
        long[] out = op.output(0).dims();
        if (in == null || out == null) {
            throw new UnsupportedFeatureException("cannot choose axes for tensor " + lt.id() + " of " + op.describe()
                    + ": its input and output dims are not declared");
        }
        java.util.List<Integer> axes = new java.util.ArrayList<>();
        if (in.length == out.length) {
            for (int i = 0; i < in.length; i++) {
                if (out[i] == 1 && in[i] != 1) {
                    axes.add(i);
                }
            }
        } else {
            int j = 0;
            for (int i = 0; i < in.length; i++) {
                if (j < out.length && in[i] == out[j]) {
                    j++;
                } else {
                    axes.add(i);
                }
            }
        }
        if (axes.size() != lt.elementCount() && op.kind() == OpKind.PartitaReduce && lt.elementCount() <= in.length) {
            // The output is dynamic while the axes are known only at execution: the first axes fit any
            // declaration then, where the declared dims imply another count of them.
            double[] first = new double[Math.toIntExact(lt.elementCount())];
            for (int i = 0; i < first.length; i++) {
                first[i] = i;
            }
            return first;
        }
        if (axes.size() != lt.elementCount()) {
            throw new UnsupportedFeatureException("cannot choose " + lt.elementCount() + " axes for tensor " + lt.id()
                    + " of " + op.describe() + ": its declared dims imply " + axes);
        }
        return axes.stream().mapToDouble(Integer::doubleValue).toArray();
    }

    /**
     * Reshape shapes, MaxUnpool output shapes, Split sizes, Squeeze/Unsqueeze axes and Tile repeats
     * known only at execution whose output nothing declares: values that always fit the source (its
     * own dims, the default unpooled dims, an even split, the first size-1 axes, the first new axes,
     * no repetition), and Range bounds giving 0 to 7; null for other ops.
     */
    private static double[] undeclaredShapeParameter(LogicalTensor lt, Op op, long[] src) {
        int n = Math.toIntExact(lt.elementCount());
        double[] v = new double[n];
        switch (op.kind()) {
            case DynamicReshape -> {
                // the source's own dims, leading ones merged or 1s put in front to make n of them: a
                // reshape that always fits
                if (n == 0) {
                    return null;
                }
                java.util.Arrays.fill(v, 1);
                for (int i = 0; i < src.length; i++) {
                    int at = Math.max(0, n - src.length + i);
                    v[at] *= src[i];
                }
            }
            case PartitaMaxUnpool -> {
                long[] out = unpooledDims(op);
                if (out == null || out.length != n) {
                    return null;
                }
                for (int i = 0; i < n; i++) {
                    v[i] = out[i];
                }
            }
            case PartitaSplit -> {
                long dim = src[(int) Math.floorMod(op.longAttr("axis"), src.length)];
                for (int i = 0; i < n; i++) {
                    v[i] = dim / n + (i < dim % n ? 1 : 0);
                }
            }
            case PartitaSqueeze -> {
                int k = 0;
                for (int a = 0; a < src.length && k < n; a++) {
                    if (src[a] == 1) {
                        v[k++] = a;
                    }
                }
                if (k < n) {
                    throw new UnsupportedFeatureException("cannot choose " + n + " axes to squeeze for tensor "
                            + lt.id() + " of " + op.describe() + ": its source " + LogicalTensor.dimsToString(src)
                            + " has " + k + " of size 1");
                }
            }
            case PartitaUnsqueeze -> {
                for (int i = 0; i < n; i++) {
                    v[i] = i;
                }
            }
            case PartitaTile -> java.util.Arrays.fill(v, 1);
            case PartitaRange -> {
                int port = op.inputs().indexOf(lt);
                for (int i = 0; i < 3 && port < 0; i++) {
                    port = op.input(i).id() == lt.id() ? i : -1;
                }
                java.util.Arrays.fill(v, port == 1 ? 8 : port == 2 ? 1 : 0); // 0, 1, ..., 7
            }
            default -> {
                return null;
            }
        }
        return v;
    }

    /**
     * A PartitaResize's sizes (integers) or scales (f32) for its resized axes (all, or its axes
     * attribute's): those of {@code target}, the declared output, or the source itself (an identity
     * resize, which every mode admits) when nothing is declared.
     */
    private static double[] resizeParameter(LogicalTensor lt, Op op, long[] src, long[] target) {
        long[] axes = op.longsAttr("axes");
        int n = axes.length == 0 ? src.length : axes.length;
        if (lt.elementCount() != n) {
            throw new UnsupportedFeatureException("cannot choose values for tensor " + lt.id() + " of " + op.describe()
                    + ": it has " + lt.elementCount() + " elements for " + n + " resized axes");
        }
        boolean scales = lt.dataType() == DataType.F32;
        double[] v = new double[n];
        for (int k = 0; k < n; k++) {
            int a = axes.length == 0 ? k : (int) Math.floorMod(axes[k], src.length);
            v[k] = scales ? (double) target[a] / src[a] : target[a];
        }
        return v;
    }

    private static double[] permutationFor(LogicalTensor lt, Op op, long[] src, long[] target) {
        boolean[] used = new boolean[src.length];
        double[] order = new double[target.length];
        for (int i = 0; i < target.length; i++) {
            int found = -1;
            for (int j = 0; j < src.length && found < 0; j++) {
                if (!used[j] && src[j] == target[i]) {
                    found = j;
                }
            }
            if (found < 0) {
                throw new UnsupportedFeatureException("cannot choose an order for tensor " + lt.id() + " of "
                        + op.describe() + ": no permutation maps its input dims to its output dims");
            }
            used[found] = true;
            order[i] = found;
        }
        return order;
    }

    private static double draw(SplittableRandom r, DataType dt, ValueDomain domain) {
        if (dt == DataType.BOOLEAN || domain == ValueDomain.BOOLEAN) {
            return r.nextBoolean() ? 1 : 0;
        }
        if (dt.isInteger()) {
            int lo = switch (dt) {
                case U8, U4, U16, U64 -> 0;
                case S4 -> -8;
                default -> -5;
            };
            int hi = switch (dt) {
                case U4, S4 -> 7;
                default -> 5;
            };
            if (domain == ValueDomain.POSITIVE || domain == ValueDomain.SCALE) {
                lo = 1;
            }
            if (domain == ValueDomain.ZERO_POINT) {
                lo = dt == DataType.S4 || dt == DataType.S8 || dt == DataType.S16 || dt == DataType.S32 ? -2 : 0;
                hi = 3;
            }
            return lo + r.nextInt(hi - lo + 1);
        }
        return switch (domain) {
            case POSITIVE -> 0.5 + 1.5 * r.nextDouble();
            case SCALE -> 0.25 + 0.5 * r.nextDouble();
            case NON_ZERO -> (r.nextBoolean() ? 1 : -1) * (0.5 + 1.5 * r.nextDouble());
            case ZERO_POINT -> r.nextInt(4);
            default -> 2 * r.nextDouble() - 1;
        };
    }
}
