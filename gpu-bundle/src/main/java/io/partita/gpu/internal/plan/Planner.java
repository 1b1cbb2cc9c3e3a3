package io.partita.gpu.internal.plan;

import static org.jocl.CL.clCreateKernel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.partita.cache.ConstantTensorCache;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.gpu.internal.cl.DeviceContext;
import io.partita.gpu.internal.codegen.Eltwise;
import io.partita.gpu.internal.codegen.PostOp;
import io.partita.gpu.internal.codegen.Sources;
import io.partita.gpu.internal.exec.GpuKernel;
import io.partita.gpu.internal.exec.Step;
import io.partita.spi.CompileRequest;

/**
 * Turns a claimed partition into kernel launches on one device. Buffers are numbered in slots:
 * the partition's inputs, its outputs, then scratch (dense copies of strided tensors for the
 * kernels that read rows). Every kernel addresses its operands through their strides, in elements.
 */
public final class Planner {
    private static final long F32 = 4;

    private final CompileRequest request;
    private final DeviceContext device;
    private final boolean tiled;
    private final Map<Long, Integer> slotOf = new HashMap<>();
    private final Map<Long, LogicalTensor> ports = new HashMap<>();
    private final List<Long> slotBytes = new ArrayList<>();
    private final List<Step> steps = new ArrayList<>();

    private Planner(CompileRequest request, DeviceContext device, boolean tiled) {
        this.request = request;
        this.device = device;
        this.tiled = tiled;
    }

    /** Which MatMul kernel to generate: by device type, or one forced by configuration. */
    public enum MatMulKernel {
        /**
         * Tiled through local memory on GPUs and accelerators, register rows on CPU devices (for
         * Convolution: direct on GPUs, implicit GEMM rows on CPU devices).
         */
        AUTO,
        /** {@link Sources#matmul} and {@link Sources#convolution}. */
        TILED,
        /** {@link Sources#matmulRows} and {@link Sources#convolutionRows}. */
        ROWS;

        /**
         * @throws IllegalArgumentException naming the value and the accepted ones
         */
        public static MatMulKernel parse(String text) {
            String t = text == null ? "" : text.trim();
            for (MatMulKernel k : values()) {
                if (k.name().equalsIgnoreCase(t)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("matmul kernel '" + text + "': expected auto, tiled or rows");
        }
    }

    /**
     * @param cache the device's constant tensor cache (constant inputs stay on the device there)
     * @param matmul which MatMul kernel to generate
     * @throws UnsupportedFeatureException naming the op when the partition holds something the kernels do not cover
     */
    public static GpuKernel plan(CompileRequest request, DeviceContext device, ConstantTensorCache cache,
            MatMulKernel matmul) {
        boolean tiled = matmul == MatMulKernel.TILED || matmul == MatMulKernel.AUTO && !"cpu".equals(device.device().type())
                && device.device().maxWorkGroupSize() >= (long) Sources.TILE * Sources.TILE;
        if (tiled && device.device().maxWorkGroupSize() < (long) Sources.TILE * Sources.TILE) {
            throw new UnsupportedFeatureException("device " + device.device().name() + " allows work-groups of "
                    + device.device().maxWorkGroupSize() + " items; the tiled MatMul kernel needs "
                    + Sources.TILE * Sources.TILE + " (configure matmul.kernel=rows)");
        }
        Planner p = new Planner(request, device, tiled);
        for (LogicalTensor t : request.inputs()) {
            p.ports.put(t.id(), t);
            p.slotOf.put(t.id(), p.slotBytes.size());
            p.slotBytes.add(bytes(t));
        }
        boolean[] upload = new boolean[request.outputs().size()];
        for (int i = 0; i < upload.length; i++) {
            LogicalTensor t = request.outputs().get(i);
            p.ports.put(t.id(), t);
            p.slotOf.put(t.id(), p.slotBytes.size());
            p.slotBytes.add(bytes(t));
            upload[i] = !isDense(t);
        }
        try {
            p.build();
        } catch (RuntimeException e) {
            p.steps.forEach(Planner::release);
            throw e;
        }
        return new GpuKernel(device, p.slotBytes.stream().mapToLong(Long::longValue).toArray(), request.inputs(),
                upload, p.steps, cache);
    }

    private static void release(Step s) {
        org.jocl.CL.clReleaseKernel(s.kernel());
        org.jocl.CL.clReleaseMemObject(s.meta());
    }

    /**
     * Plans each kernel group of the partition; groups run in the order of their last op, which
     * comes after the producers of everything the group reads (a producer inside another group is
     * that group's last op, since chain members have no reader outside their chain).
     */
    private void build() {
        List<Op> ops = request.ops();
        List<Groups.Group> groups = new ArrayList<>(Groups.split(Groups.of(ops, request.outputs()), ops.size() > 1));
        Map<Long, Integer> position = new HashMap<>();
        for (int i = 0; i < ops.size(); i++) {
            position.put(ops.get(i).id(), i);
        }
        groups.sort(java.util.Comparator.comparingInt(g -> position.get(g.ops().get(g.ops().size() - 1).id())));
        int covered = 0;
        for (Groups.Group g : groups) {
            group(g.ops().get(0), g.ops().subList(1, g.ops().size()));
            covered += g.ops().size();
        }
        if (covered != ops.size()) {
            throw new UnsupportedFeatureException("the gpu engine has kernels for " + covered + " of the " + ops.size()
                    + " ops of partition " + request.partitionId());
        }
    }

    private void group(Op head, List<Op> posts) {
        OpKind k = head.kind();
        if (!Support.supports(head)) {
            throw new UnsupportedFeatureException(head.describe() + " has no kernel in the gpu engine");
        }
        if (k == OpKind.MatMul) {
            matmul(head, posts);
        } else if (k == OpKind.Convolution) {
            convolution(head, posts);
        } else if (Support.isElementwise(k) || Support.isCopy(k)) {
            elementwise(head, posts);
        } else if (k == OpKind.SoftMax) {
            softmax(head);
        } else if (k == OpKind.LayerNorm) {
            layerNorm(head);
        } else if (k == OpKind.MaxPool || k == OpKind.AvgPool) {
            pooling(head);
        } else if (k == OpKind.Concat) {
            concat(head);
        } else if (Support.isReduction(k)) {
            reduction(head);
        } else {
            throw new UnsupportedFeatureException(head.describe() + " has no kernel in the gpu engine");
        }
    }

    /** Reduce* over the axes attribute; keep_dims only changes how the output's dims are written. */
    private void reduction(Op op) {
        LogicalTensor x = op.input(0);
        LogicalTensor y = op.output(0);
        long[] d = x.dims();
        int r = d.length;
        int rr = Math.max(r, 1);
        boolean[] reduced = new boolean[rr];
        for (long a : op.longsAttr("axes")) {
            reduced[(int) Math.floorMod(a, (long) rr)] = r > 0;
        }
        long[] sx = strides(x);
        long[] syOwn = strides(y);
        boolean keep = y.ndims() == r;
        long[] meta = new long[3 + 4 * rr];
        long outputs = 1;
        long count = 1;
        int yd = 0;
        for (int i = 0; i < rr; i++) {
            long dim = i < r ? d[i] : 1;
            boolean red = i < r && reduced[i];
            meta[3 + i] = red ? 1 : dim;
            meta[3 + rr + i] = red ? dim : 1;
            meta[3 + 2 * rr + i] = i < r ? sx[i] : 0;
            long ys = 0;
            if (keep && i < r) {
                ys = red ? 0 : syOwn[i];
            } else if (!red && i < r) {
                ys = syOwn[yd++];
            }
            meta[3 + 3 * rr + i] = ys;
            outputs *= red ? 1 : dim;
            count *= red ? dim : 1;
        }
        meta[0] = outputs;
        meta[1] = rr;
        meta[2] = count;
        add(op.kind().spelling(), Sources.reduction(op.kind()), "reduce", new int[] {slot(x), slot(y)}, meta, null,
                new long[] {outputs}, null);
    }

    /** Concat: one copy per input into its slice of the output (a base offset along the axis). */
    private void concat(Op op) {
        LogicalTensor y = op.output(0);
        long[] sy = strides(y);
        int axis = (int) Math.floorMod(op.longAttr("axis"), (long) y.ndims());
        long at = 0;
        for (LogicalTensor x : op.inputs()) {
            long total = count(x.dims());
            int r = Math.max(1, x.ndims());
            long[] meta = elementwiseMeta(total, r, new long[][] {x.dims(), x.dims()}, new long[][] {sy, strides(x)},
                    new long[] {at * sy[axis], 0});
            add("concat", Sources.elementwise(1, Sources.load(0), List.of(), 0), "eltwise",
                    new int[] {slot(y), slot(x)}, meta, null, new long[] {total}, null);
            at += x.dims()[axis];
        }
    }

    // ---- slots and strides

    private static boolean isDense(LogicalTensor t) {
        return t.layoutType() != LayoutType.STRIDED || t.isDense();
    }

    /**
     * Strides in elements, from the partition's port description where the tensor is a port (the
     * ops may describe it with its layout still open); dense row-major where the layout is open.
     */
    private long[] strides(LogicalTensor t) {
        LogicalTensor d = ports.getOrDefault(t.id(), t);
        return d.layoutType() == LayoutType.STRIDED ? d.strides() : LogicalTensor.denseStrides(d.dims());
    }

    private static long bytes(LogicalTensor t) {
        return t.layoutType() == LayoutType.STRIDED ? t.memSize() : t.elementCount() * F32;
    }

    private int slot(LogicalTensor t) {
        Integer s = slotOf.get(t.id());
        if (s == null) {
            // a tensor inside the partition (between kernel groups, or a statistic nobody reads): device scratch
            slotBytes.add(bytes(t));
            s = slotBytes.size() - 1;
            slotOf.put(t.id(), s);
        }
        return s;
    }

    private int scratch(long elements) {
        slotBytes.add(elements * F32);
        return slotBytes.size() - 1;
    }

    /** The tensor's slot, or a dense copy of it made by a copy launch first. */
    private int denseIn(LogicalTensor t) {
        int s = slot(t);
        if (Arrays.equals(strides(t), LogicalTensor.denseStrides(t.dims()))) {
            return s;
        }
        int d = scratch(t.elementCount());
        copy(t.dims(), strides(t), s, t.dims(), LogicalTensor.denseStrides(t.dims()), d);
        return d;
    }

    /** Copies a tensor between slots, element by element in row-major order of {@code dims}. */
    private void copy(long[] srcDims, long[] srcStrides, int src, long[] dstDims, long[] dstStrides, int dst) {
        long total = count(dstDims);
        int r = Math.max(1, Math.max(srcDims.length, dstDims.length));
        long[] meta = elementwiseMeta(total, r, new long[][] {dstDims, srcDims}, new long[][] {dstStrides, srcStrides});
        add("copy", Sources.elementwise(1, Sources.load(0), List.of(), 0), "eltwise", new int[] {dst, src}, meta, null,
                new long[] {total}, null);
    }

    // ---- MatMul with its epilogue

    private void matmul(Op mm, List<Op> posts) {
        LogicalTensor a = mm.input(0);
        LogicalTensor b = mm.input(1);
        Op last = posts.isEmpty() ? mm : posts.get(posts.size() - 1);
        LogicalTensor c = last.output(0);
        long[] out = mm.output(0).dims();
        boolean a1 = a.ndims() == 1;
        boolean b1 = b.ndims() == 1;
        boolean ta = mm.boolAttr("transpose_a") && !a1;
        boolean tb = mm.boolAttr("transpose_b") && !b1;
        long[] ad = a.dims();
        long[] bd = b.dims();
        long[] sa = strides(a);
        long[] sb = strides(b);
        int ar = ad.length;
        int br = bd.length;
        long m = a1 ? 1 : ad[ta ? ar - 1 : ar - 2];
        long kk = a1 ? ad[0] : ad[ta ? ar - 2 : ar - 1];
        long n = b1 ? 1 : bd[tb ? br - 2 : br - 1];
        long sAm = a1 ? 0 : (ta ? sa[ar - 1] : sa[ar - 2]);
        long sAk = a1 ? sa[0] : (ta ? sa[ar - 2] : sa[ar - 1]);
        long sBk = b1 ? sb[0] : (tb ? sb[br - 1] : sb[br - 2]);
        long sBn = b1 ? 0 : (tb ? sb[br - 2] : sb[br - 1]);
        int or = out.length;
        int batchRank = or - (a1 ? 0 : 1) - (b1 ? 0 : 1);
        int mDim = a1 ? -1 : or - (b1 ? 1 : 2);
        int nDim = b1 ? -1 : or - 1;

        // epilogue operands, as strides over the output's dims
        List<PostOp> chain = new ArrayList<>();
        List<long[]> operandStrides = new ArrayList<>();
        List<Integer> operandSlots = new ArrayList<>();
        if (mm.inputs().size() > 2) {
            LogicalTensor bias = mm.input(2);
            chain.add(new PostOp(Op.builder(mm.id(), OpKind.Add).build(), 0, false));
            operandStrides.add(broadcastStrides(bias, out));
            operandSlots.add(slot(bias));
        }
        epilogue(posts, mm.output(0), out, chain, operandStrides, operandSlots);

        long[] sc = strides(c);
        int ops = operandSlots.size();
        long[] batchDims = Arrays.copyOf(out, batchRank);
        long batch = count(batchDims);
        int header = Sources.matmulHeader(ops);
        int entry = 3 + ops;
        long[] meta = new long[Math.toIntExact(header + batch * entry)];
        long[] head = {m, n, kk, sAm, sAk, sBk, sBn, mDim < 0 ? 0 : sc[mDim], nDim < 0 ? 0 : sc[nDim]};
        System.arraycopy(head, 0, meta, 0, head.length);
        for (int j = 0; j < ops; j++) {
            long[] ps = operandStrides.get(j);
            meta[9 + 2 * j] = mDim < 0 ? 0 : ps[mDim];
            meta[10 + 2 * j] = nDim < 0 ? 0 : ps[nDim];
        }
        long[] aBatch = batchStrides(ad, sa, a1 ? 1 : 2, batchRank);
        long[] bBatch = batchStrides(bd, sb, b1 ? 1 : 2, batchRank);
        long[] coord = new long[batchRank];
        for (long bi = 0; bi < batch; bi++) {
            int base = Math.toIntExact(header + bi * entry);
            meta[base] = dot(coord, aBatch);
            meta[base + 1] = dot(coord, bBatch);
            meta[base + 2] = dot(coord, sc);
            for (int j = 0; j < ops; j++) {
                meta[base + 3 + j] = dot(coord, operandStrides.get(j));
            }
            increment(coord, batchDims);
        }
        int[] slots = new int[3 + ops];
        slots[0] = slot(a);
        slots[1] = slot(b);
        slots[2] = slot(c);
        for (int j = 0; j < ops; j++) {
            slots[3 + j] = operandSlots.get(j);
        }
        if (tiled) {
            long t = Sources.TILE;
            add("matmul", Sources.matmul(chain, ops), "matmul", slots, meta, null,
                    new long[] {roundUp(n, t), batch * roundUp(m, t)}, new long[] {t, t});
        } else {
            boolean unit = sBn == 1 && (nDim < 0 ? 0 : sc[nDim]) == 1;
            long extent = 0;
            for (int sl : slots) {
                extent = Math.max(extent, slotBytes.get(sl) / F32);
            }
            boolean narrow = extent < Integer.MAX_VALUE && Math.max(m, Math.max(n, kk)) < Integer.MAX_VALUE;
            add("matmul", Sources.matmulRows(chain, ops, unit, narrow), "matmul", slots, meta, null,
                    new long[] {roundUp(n, Sources.LANES), batch * ((m + Sources.ROWS - 1) / Sources.ROWS)},
                    new long[] {Sources.LANES, 1});
        }
    }

    /** Appends the post-ops of a chain whose value starts as {@code value} (dims {@code dims}). */
    private void epilogue(List<Op> posts, LogicalTensor value, long[] dims, List<PostOp> chain, List<long[]> operandStrides,
            List<Integer> operandSlots) {
        LogicalTensor v = value;
        for (Op p : posts) {
            if (p.inputs().size() == 1) {
                chain.add(new PostOp(p, -1, false));
            } else {
                boolean rhs = p.input(1).id() == v.id();
                LogicalTensor other = p.input(rhs ? 0 : 1);
                chain.add(new PostOp(p, operandSlots.size(), rhs));
                operandStrides.add(p.kind() == OpKind.BiasAdd ? biasStrides(p, other, dims) : broadcastStrides(other, dims));
                operandSlots.add(slot(other));
            }
            v = p.output(0);
        }
    }

    // ---- elementwise heads and copies

    private void elementwise(Op head, List<Op> posts) {
        Op last = posts.isEmpty() ? head : posts.get(posts.size() - 1);
        LogicalTensor y = last.output(0);
        long[] out = head.output(0).dims();
        List<long[]> dims = new ArrayList<>();
        List<long[]> strides = new ArrayList<>();
        dims.add(out);
        strides.add(strides(y));
        List<Integer> slots = new ArrayList<>();
        slots.add(slot(y));
        String expr;
        int inputs;
        OpKind k = head.kind();
        if (Support.isCopy(k)) {
            LogicalTensor x = head.input(0);
            inputs = 1;
            expr = Sources.load(0);
            if (k == OpKind.StaticTranspose) {
                long[] order = head.longsAttr("order");
                long[] sx = strides(x);
                long[] permuted = new long[out.length];
                for (int d = 0; d < out.length; d++) {
                    permuted[d] = sx[(int) Math.floorMod(order[d], (long) out.length)];
                }
                dims.add(out);
                strides.add(permuted);
            } else {
                // Reshape and Reorder: walk the source in its own row-major order
                dims.add(x.dims());
                strides.add(strides(x));
            }
            slots.add(slot(x));
        } else if (k == OpKind.BiasAdd) {
            inputs = 2;
            expr = Eltwise.binary(OpKind.Add, Sources.load(0), Sources.load(1));
            dims.add(out);
            strides.add(strides(head.input(0)));
            dims.add(out);
            strides.add(biasStrides(head, head.input(1), out));
            slots.add(slot(head.input(0)));
            slots.add(slot(head.input(1)));
        } else {
            inputs = head.inputs().size();
            for (LogicalTensor x : head.inputs()) {
                dims.add(out);
                strides.add(broadcastStrides(x, out));
                slots.add(slot(x));
            }
            expr = inputs == 1 ? Eltwise.unary(head, Sources.load(0))
                    : Eltwise.binary(k, Sources.load(0), Sources.load(1));
        }
        List<PostOp> chain = new ArrayList<>();
        List<long[]> operandStrides = new ArrayList<>();
        List<Integer> operandSlots = new ArrayList<>();
        epilogue(posts, head.output(0), out, chain, operandStrides, operandSlots);
        for (int j = 0; j < operandSlots.size(); j++) {
            dims.add(out);
            strides.add(operandStrides.get(j));
            slots.add(operandSlots.get(j));
        }
        int r = 1;
        for (long[] d : dims) {
            r = Math.max(r, d.length);
        }
        long total = count(out);
        long[] meta = elementwiseMeta(total, r, dims.toArray(long[][]::new), strides.toArray(long[][]::new));
        add(k.spelling(), Sources.elementwise(inputs, expr, chain, operandSlots.size()), "eltwise",
                slots.stream().mapToInt(Integer::intValue).toArray(), meta, null, new long[] {total}, null);
    }

    // ---- convolution and pooling, in canonical (n, c, d, h, w) geometry

    /** Dims (or strides) of an activation tensor in n, c, d, h, w order; missing spatial dims are 1 (stride 0). */
    private static long[] canonical(long[] v, boolean nxc, long pad) {
        int ns = v.length - 2;
        long[] r = {v[0], nxc ? v[v.length - 1] : v[1], pad, pad, pad};
        for (int i = 0; i < ns; i++) {
            r[2 + 3 - ns + i] = v[nxc ? 1 + i : 2 + i];
        }
        return r;
    }

    /** Spatial attribute values (kernel, strides, ...) padded in front to 3 with {@code fill}. */
    private static long[] spatial3(long[] v, int ns, long fill) {
        long[] r = {fill, fill, fill};
        for (int i = 0; i < ns; i++) {
            r[3 - ns + i] = v == null || i >= v.length ? fill : v[i];
        }
        return r;
    }

    /**
     * Begin pads as oneDNN resolves auto_pad for a forward convolution or pooling: SAME_* splits
     * {@code max(0, dilatedK - (in % s == 0 ? s : in % s))}, the odd element at the end (UPPER) or begin (LOWER).
     */
    private static long[] beginPads(Op op, long[] in, long[] k, long[] s, long[] dil) {
        int ns = in.length;
        String auto = op.hasAttr("auto_pad") ? op.stringAttr("auto_pad") : "None";
        long[] given = op.hasAttr("pads_begin") ? op.longsAttr("pads_begin") : new long[0];
        long[] b = new long[ns];
        for (int i = 0; i < ns; i++) {
            switch (auto) {
                case "VALID" -> b[i] = 0;
                case "SAME_UPPER", "SAME_LOWER" -> {
                    long eff = (k[i] - 1) * dil[i] + 1;
                    long total = Math.max(0, in[i] % s[i] == 0 ? eff - s[i] : eff - in[i] % s[i]);
                    b[i] = "SAME_LOWER".equals(auto) ? (total + 1) / 2 : total / 2;
                }
                default -> b[i] = i < given.length ? given[i] : 0;
            }
        }
        return b;
    }

    private static long[] spatialOf(long[] dims, boolean nxc) {
        return Arrays.copyOfRange(dims, nxc ? 1 : 2, nxc ? dims.length - 1 : dims.length);
    }

    private static long[] longsOr(Op op, String attr, int ns, long fill) {
        if (op.hasAttr(attr)) {
            return op.longsAttr(attr);
        }
        long[] r = new long[ns];
        Arrays.fill(r, fill);
        return r;
    }

    private void convolution(Op conv, List<Op> posts) {
        LogicalTensor x = conv.input(0);
        LogicalTensor w = conv.input(1);
        Op last = posts.isEmpty() ? conv : posts.get(posts.size() - 1);
        LogicalTensor y = last.output(0);
        long[] out = conv.output(0).dims();
        boolean nxc = !conv.hasAttr("data_format") || "NXC".equals(conv.stringAttr("data_format"));
        boolean oix = conv.hasAttr("weights_format") && "OIX".equals(conv.stringAttr("weights_format"));
        int ns = x.ndims() - 2;
        long[] wd = w.dims();
        long[] ws = strides(w);
        int wr = wd.length;
        long[] kernel = oix ? Arrays.copyOfRange(wd, 2, wr) : Arrays.copyOfRange(wd, 0, wr - 2);
        long[] wCanon = new long[5];
        wCanon[0] = oix ? ws[0] : ws[wr - 1];
        wCanon[1] = oix ? ws[1] : ws[wr - 2];
        for (int i = 0; i < ns; i++) {
            wCanon[2 + 3 - ns + i] = oix ? ws[2 + i] : ws[i];
        }
        long oc = oix ? wd[0] : wd[wr - 1];
        long icpg = oix ? wd[1] : wd[wr - 2];
        long groups = conv.hasAttr("groups") ? conv.longAttr("groups") : 1;
        long[] st = longsOr(conv, "strides", ns, 1);
        long[] dil = longsOr(conv, "dilations", ns, 1);
        long[] pads = beginPads(conv, spatialOf(x.dims(), nxc), kernel, st, dil);

        List<PostOp> chain = new ArrayList<>();
        List<long[]> operandStrides = new ArrayList<>();
        List<Integer> operandSlots = new ArrayList<>();
        if (conv.inputs().size() > 2) {
            // the bias input: one value per output channel
            long[] bs = new long[out.length];
            bs[nxc ? out.length - 1 : 1] = conv.input(2).dims()[0] == 1 ? 0 : strides(conv.input(2))[0];
            chain.add(new PostOp(Op.builder(conv.id(), OpKind.Add).build(), 0, false));
            operandStrides.add(bs);
            operandSlots.add(slot(conv.input(2)));
        }
        epilogue(posts, conv.output(0), out, chain, operandStrides, operandSlots);
        int ops = operandSlots.size();
        long[] meta = new long[Sources.CONV_HEADER + 5 * ops];
        put(meta, 0, canonical(out, nxc, 1));
        put(meta, 5, canonical(strides(y), nxc, 0));
        put(meta, 10, canonical(x.dims(), nxc, 1));
        put(meta, 15, canonical(strides(x), nxc, 0));
        put(meta, 20, wCanon);
        put(meta, 25, spatial3(kernel, ns, 1));
        put(meta, 28, spatial3(st, ns, 1));
        put(meta, 31, spatial3(dil, ns, 1));
        put(meta, 34, spatial3(pads, ns, 0));
        meta[37] = icpg;
        meta[38] = oc / groups;
        for (int j = 0; j < ops; j++) {
            put(meta, Sources.CONV_HEADER + 5 * j, canonical(operandStrides.get(j), nxc, 0));
        }
        int[] slots = new int[3 + ops];
        slots[0] = slot(x);
        slots[1] = slot(w);
        slots[2] = slot(y);
        for (int j = 0; j < ops; j++) {
            slots[3 + j] = operandSlots.get(j);
        }
        // The implicit GEMM pays off where output channels are innermost in the weights and the dst
        // (XIO, NXC): its lanes then load and store contiguously; otherwise (OIX, NCX) the direct
        // kernel's lanes, consecutive output columns, are the contiguous ones.
        boolean channelsInnermost = wCanon[0] == 1 && meta[6] == 1;
        if (tiled || !channelsInnermost) {
            add("convolution", Sources.convolution(chain, ops), "conv", slots, meta, null, new long[] {count(out)}, null);
        } else {
            long pixels = count(out) / Math.max(oc, 1);
            add("convolution", Sources.convolutionRows(chain, ops, true), "conv", slots, meta, null,
                    new long[] {roundUp(oc, Sources.LANES), (pixels + Sources.ROWS - 1) / Sources.ROWS},
                    new long[] {Sources.LANES, 1});
        }
    }

    private void pooling(Op op) {
        LogicalTensor x = op.input(0);
        LogicalTensor y = op.output(0);
        boolean nxc = !op.hasAttr("data_format") || "NXC".equals(op.stringAttr("data_format"));
        int ns = x.ndims() - 2;
        long[] k = op.longsAttr("kernel");
        long[] st = longsOr(op, "strides", ns, 1);
        long[] dil = longsOr(op, "dilations", ns, 1);
        long[] pads = beginPads(op, spatialOf(x.dims(), nxc), k, st, dil);
        long[] meta = new long[34];
        put(meta, 0, canonical(y.dims(), nxc, 1));
        put(meta, 5, canonical(strides(y), nxc, 0));
        put(meta, 10, canonical(x.dims(), nxc, 1));
        put(meta, 15, canonical(strides(x), nxc, 0));
        put(meta, 20, spatial3(k, ns, 1));
        put(meta, 23, spatial3(st, ns, 1));
        put(meta, 26, spatial3(dil, ns, 1));
        put(meta, 29, spatial3(pads, ns, 0));
        meta[32] = op.kind() == OpKind.MaxPool ? 0 : op.boolAttr("exclude_pad") ? 2 : 1;
        meta[33] = Float.floatToRawIntBits(-Float.MAX_VALUE);
        add(op.kind().spelling(), Sources.pooling(), "pool", new int[] {slot(x), slot(y)}, meta, null,
                new long[] {count(y.dims())}, null);
    }

    private static void put(long[] meta, int at, long[] v) {
        System.arraycopy(v, 0, meta, at, v.length);
    }

    // ---- row kernels

    private void softmax(Op op) {
        LogicalTensor x = op.input(0);
        LogicalTensor y = op.output(0);
        long[] d = x.dims();
        int axis = d.length == 0 ? 0 : (int) Math.floorMod(op.longAttr("axis"), (long) d.length);
        long len = d.length == 0 ? 1 : d[axis];
        long outer = 1;
        long inner = 1;
        for (int i = 0; i < axis; i++) {
            outer *= d[i];
        }
        for (int i = axis + 1; i < d.length; i++) {
            inner *= d[i];
        }
        boolean infAsZero = op.hasAttr("mode") && "inf_as_zero".equals(op.stringAttr("mode"));
        int xs = denseIn(x);
        int ys = denseOutBegin(y);
        add("softmax", Sources.softmax(), "softmax", new int[] {xs, ys}, new long[] {outer, len, inner, infAsZero ? 1 : 0},
                null, new long[] {outer * inner}, null);
        denseOutEnd(y, ys);
    }

    private void layerNorm(Op op) {
        LogicalTensor x = op.input(0);
        long[] d = x.dims();
        int begin = d.length == 0 ? 0 : (int) Math.floorMod(op.longAttr("begin_norm_axis"), (long) d.length);
        long rows = 1;
        long cols = 1;
        for (int i = 0; i < d.length; i++) {
            if (i < begin) {
                rows *= d[i];
            } else {
                cols *= d[i];
            }
        }
        boolean affine = op.boolAttr("use_affine") && op.inputs().size() == 3;
        List<Integer> slots = new ArrayList<>();
        slots.add(denseIn(x));
        if (affine) {
            slots.add(denseIn(op.input(1)));
            slots.add(denseIn(op.input(2)));
        }
        int[] outs = new int[op.outputs().size()];
        for (int i = 0; i < outs.length; i++) {
            outs[i] = denseOutBegin(op.output(i));
            slots.add(outs[i]);
        }
        add("layernorm", Sources.layerNorm(affine, outs.length - 1), "layernorm",
                slots.stream().mapToInt(Integer::intValue).toArray(), new long[] {rows, cols}, op.floatAttr("epsilon"),
                new long[] {rows}, null);
        for (int i = 0; i < outs.length; i++) {
            denseOutEnd(op.output(i), outs[i]);
        }
    }

    /** Where a row kernel writes an output: its slot when dense, else scratch copied over by {@link #denseOutEnd}. */
    private int denseOutBegin(LogicalTensor t) {
        int s = slot(t);
        return Arrays.equals(strides(t), LogicalTensor.denseStrides(t.dims())) ? s : scratch(t.elementCount());
    }

    private void denseOutEnd(LogicalTensor t, int written) {
        int s = slot(t);
        if (written != s) {
            copy(t.dims(), LogicalTensor.denseStrides(t.dims()), written, t.dims(), strides(t), s);
        }
    }

    // ---- helpers

    private void add(String name, String source, String kernelName, int[] slots, long[] meta, Float scalar, long[] global,
            long[] local) {
        org.jocl.cl_kernel kernel = clCreateKernel(device.program(source), kernelName, null);
        steps.add(new Step(name, kernel, slots, device.constantLongs(meta), scalar, global, local));
    }

    /** Meta of the elementwise kernel: total, rank, then per operand dims and strides padded in front to rank r. */
    private static long[] elementwiseMeta(long total, int r, long[][] dims, long[][] strides) {
        return elementwiseMeta(total, r, dims, strides, new long[dims.length]);
    }

    /** As {@link #elementwiseMeta(long, int, long[][], long[][])}, each operand starting at a base offset. */
    private static long[] elementwiseMeta(long total, int r, long[][] dims, long[][] strides, long[] bases) {
        long[] meta = new long[2 + (1 + 2 * r) * dims.length];
        meta[0] = total;
        meta[1] = r;
        for (int j = 0; j < dims.length; j++) {
            int base = 2 + j * (1 + 2 * r);
            meta[base] = bases[j];
            int pad = r - dims[j].length;
            for (int i = 0; i < r; i++) {
                meta[base + 1 + i] = i < pad ? 1 : dims[j][i - pad];
                meta[base + 1 + r + i] = i < pad ? 0 : strides[j][i - pad];
            }
        }
        return meta;
    }

    /** Strides of {@code t} over {@code dims} under numpy broadcasting: 0 where it is broadcast. */
    private long[] broadcastStrides(LogicalTensor t, long[] dims) {
        long[] d = t.dims();
        long[] s = strides(t);
        long[] r = new long[dims.length];
        int off = dims.length - d.length;
        for (int i = 0; i < d.length; i++) {
            r[off + i] = d[i] == 1 ? 0 : s[i];
        }
        return r;
    }

    /** A BiasAdd's bias over the output dims: along the channel dim (last for NXC, 1 for NCX), 0 elsewhere. */
    private long[] biasStrides(Op op, LogicalTensor bias, long[] dims) {
        boolean ncx = op.hasAttr("data_format") && "NCX".equals(op.stringAttr("data_format"));
        int channel = ncx && dims.length > 1 ? 1 : dims.length - 1;
        long[] r = new long[dims.length];
        r[channel] = bias.dims()[0] == 1 ? 0 : strides(bias)[0];
        return r;
    }

    /** Strides of an operand's batch dims (all but its last {@code matrixDims}) aligned right to {@code batchRank}. */
    private static long[] batchStrides(long[] dims, long[] strides, int matrixDims, int batchRank) {
        long[] r = new long[batchRank];
        int own = dims.length - matrixDims;
        for (int i = 0; i < own; i++) {
            r[batchRank - own + i] = dims[i] == 1 ? 0 : strides[i];
        }
        return r;
    }

    private static long dot(long[] coord, long[] strides) {
        long s = 0;
        for (int i = 0; i < coord.length; i++) {
            s += coord[i] * strides[i];
        }
        return s;
    }

    private static void increment(long[] coord, long[] dims) {
        for (int i = coord.length - 1; i >= 0; i--) {
            if (++coord[i] < dims[i]) {
                return;
            }
            coord[i] = 0;
        }
    }

    private static long count(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    private static long roundUp(long v, long to) {
        return (v + to - 1) / to * to;
    }
}
