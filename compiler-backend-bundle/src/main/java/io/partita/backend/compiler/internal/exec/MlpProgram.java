package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.partita.backend.compiler.internal.codegen.RowKernel;
import io.partita.backend.compiler.internal.codegen.RowKernelGenerator;
import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.backend.compiler.internal.fusion.MlpShape;
import io.partita.cache.CacheKey;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Lease;
import io.partita.cache.SourceMemory;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;

/**
 * A compiled (gated) MLP: per block of rows, the up projections run panel by panel with the
 * generated hidden-activation kernel applied to each register tile (activation, gate product,
 * bias: one pass, in cache), and the block's hidden rows go straight into the down projection.
 * The [rows x hidden] activation never exists beyond one block. Constant weights are packed once
 * into the unified constant cache under backend id {@code compiler}.
 */
public final class MlpProgram implements Program {
    /**
     * Most rows per block. Every block streams all weights once, so blocks are large (a BERT-sized
     * hidden block of 140 x 3072 is 1.7 MB); below it, rows share each weight panel while it is in
     * cache. Row counts above it are split into equal blocks, so 129 rows are not 128 and then one
     * that streams all weights again for itself.
     */
    private static final int GROUPS_PER_BLOCK = (128 + Panels.MRW - 1) / Panels.MRW;
    private static final AtomicLong IDS = new AtomicLong();
    private static final ThreadLocal<float[]> TILES = ThreadLocal.withInitial(() -> new float[0]);
    /** The calling thread's block buffers (X interleaved, hidden activations, X staged), kept between calls. */
    private static final ThreadLocal<float[][]> BLOCKS = ThreadLocal.withInitial(() -> new float[3][0]);

    private final long id = IDS.incrementAndGet();
    private final String backendId;
    private final CompileRequest request;
    private final MlpShape shape;
    private final RowKernel hidden;
    private final int xPort;
    private final int[] upPorts;
    private final int downPort;
    private final List<Operand> operands = new ArrayList<>();
    private final List<Operand> scalars = new ArrayList<>();
    private final ConstantTensorCache cache;
    private final Set<CacheKey> added = ConcurrentHashMap.newKeySet();

    private record Operand(int port, LogicalTensor tensor) {
    }

    /** This backend's constant cache key: packed weights of one input of one compiled MLP. */
    private record PackedKey(long program, int port, LogicalTensor tensor, SourceMemory source) {
    }

    public MlpProgram(String backendId, CompileRequest request, MlpShape shape, RowKernelGenerator generator,
            ConstantTensorCache cache) {
        this.backendId = backendId;
        this.request = request;
        this.shape = shape;
        this.cache = cache;
        if (request.outputs().size() != 1) {
            throw new UnsupportedFeatureException("partition " + request.partitionId() + ": a fused MLP writes one"
                    + " output, the partition has " + request.outputs().size());
        }
        xPort = port(shape.up().get(0).input(0));
        upPorts = shape.up().stream().mapToInt(op -> port(op.input(1))).toArray();
        downPort = port(shape.down().input(1));
        int rank = shape.down().input(0).dims().length;
        ExprBuilder b = new ExprBuilder();
        for (Op up : shape.up()) {
            b.bind(up.output(0).id(), b.source());
        }
        for (Op op : shape.hidden()) {
            b.add(op, rank, t -> {
                if (t.dataType() != DataType.F32) {
                    throw new UnsupportedFeatureException("MLP operand " + t.id() + " has data type " + t.dataType()
                            + "; fused code reads f32");
                }
                int leaf;
                if (singleElement(t)) {
                    scalars.add(new Operand(port(t), t));
                    leaf = b.scalar();
                } else {
                    operands.add(new Operand(port(t), t));
                    leaf = b.source();
                }
                b.bind(t.id(), leaf);
                return leaf;
            });
        }
        Expr expr = b.build(shape.down().input(0).id());
        hidden = generator.kernel(expr, Panels.NR, "partition " + request.partitionId() + " (" + request.pattern() + ")");
    }

    private int port(LogicalTensor t) {
        List<LogicalTensor> ins = request.inputs();
        for (int i = 0; i < ins.size(); i++) {
            if (ins.get(i).id() == t.id()) {
                return i;
            }
        }
        throw new UnsupportedFeatureException("partition " + request.partitionId() + ": tensor " + t.id()
                + " is not a partition input (views before a fused MLP are not folded)");
    }

    private static boolean singleElement(LogicalTensor t) {
        long[] d = t.dims();
        return d != null && Arrays.stream(d).allMatch(x -> x == 1);
    }

    @Override
    public void execute(List<Tensor> in, List<Tensor> out, Parallel pool) {
        LogicalTensor x = in.get(xPort).logicalTensor();
        long[] xd = x.dims();
        int k = toInt(xd[xd.length - 1]);
        long rowsL = 1;
        for (int i = 0; i < xd.length - 1; i++) {
            rowsL *= xd[i];
        }
        int m = toInt(rowsL);
        long[] batch = Arrays.copyOf(xd, xd.length - 1);
        Weights[] up = new Weights[upPorts.length];
        Weights down = null;
        try {
            for (int i = 0; i < up.length; i++) {
                up[i] = weights(in, upPorts[i], shape.up().get(i).boolAttr("transpose_b"), k);
            }
            int n = up[0].cols;
            if (up.length == 2 && up[1].cols != n) {
                throw new UnsupportedFeatureException("gate and up projections have " + n + " and " + up[1].cols
                        + " columns");
            }
            int np = Panels.panels(n) * Panels.NR;
            down = weights(in, downPort, shape.down().boolAttr("transpose_b"), n, np);
            Weights dw = down;
            float[] sc = new float[scalars.size()];
            for (int i = 0; i < sc.length; i++) {
                sc[i] = in.get(scalars.get(i).port()).data().getAtIndex(ValueLayout.JAVA_FLOAT, 0);
            }
            long[] hiddenDims = Arrays.copyOf(batch, batch.length + 1);
            hiddenDims[batch.length] = n;
            OperandRows ops = new OperandRows(in, hiddenDims);
            LogicalTensor o = out.get(0).logicalTensor();
            MemorySegment xs = in.get(xPort).data();
            // One row is its own layout (group stride 1): the rows' values are read one after another.
            int mr = m == 1 ? 1 : Panels.MRW;
            int maxRows = GROUPS_PER_BLOCK * Panels.MRW;
            int blocks = (m + maxRows - 1) / maxRows;
            int mb = (m + blocks - 1) / blocks;
            int groups = (mb + mr - 1) / mr;
            float[][] bufs = BLOCKS.get();
            float[] xb = grow(bufs, 0, groups * mr * k);
            float[] h = grow(bufs, 1, groups * mr * np);
            float[] staged = grow(bufs, 2, mb * k);
            for (int m0 = 0; m0 < m; m0 += mb) {
                int rows = Math.min(mb, m - m0);
                for (int r = 0; r < rows; r++) {
                    long base = Strides.offset(m0 + r, batch, x.strides(), batch.length);
                    copyRow(xs, base, x.strides()[xd.length - 1], staged, r * k, k);
                }
                Panels.interleave(staged, 0, k, rows, k, mr, xb, 0);
                int block = m0;
                pool.forEach(Panels.panels(n), p -> upPanel(xb, k, mr, rows, block, p, up, n, np, h, ops, sc));
                pool.forEach(Panels.panels(dw.cols), q -> downPanel(h, np, mr, rows, block, q, dw, out.get(0),
                        o, batch));
            }
        } finally {
            for (Weights w : up) {
                if (w != null) {
                    w.close();
                }
            }
            if (down != null) {
                down.close();
            }
        }
    }

    /**
     * Hidden activation columns of panel p for the block's rows: the up tiles of each row group,
     * the generated kernel on each row, and the result into h, interleaved as the down tiles read it
     * (columns past N as zeros: h is kept between calls, and the down weights' padding rows are
     * zeros only as long as h's padding columns hold no NaN).
     */
    private void upPanel(float[] xb, int k, int mr, int rows, int m0, int p, Weights[] up, int n, int np, float[] h,
            OperandRows ops, float[] sc) {
        int nr = Panels.NR;
        int tile = nr * Panels.MRW;
        float[] t = tiles(2 * tile + nr * operands.size());
        int gOff = 0;
        int uOff = tile;
        int opOff = 2 * tile;
        float[][] src = new float[2 + operands.size()][];
        int[] off = new int[src.length];
        int c0 = p * nr;
        int w = Math.min(nr, n - c0);
        for (int rg = 0; rg < rows; rg += mr) {
            int live = Math.min(mr, rows - rg);
            for (int u = 0; u < up.length; u++) {
                int panel = p * up[u].rowsPadded * nr;
                Panels.tileRows(xb, rg * k, mr, live, k, up[u].packed, panel, t, u == 0 ? gOff : uOff);
            }
            int hg = rg * np + c0 * mr;
            for (int r = 0; r < live; r++) {
                int s = 0;
                src[s] = t;
                off[s++] = gOff + r * nr;
                if (up.length == 2) {
                    src[s] = t;
                    off[s++] = uOff + r * nr;
                }
                for (int i = 0; i < operands.size(); i++) {
                    ops.stage(i, m0 + rg + r, c0, w, t, opOff + i * nr);
                    src[s] = t;
                    off[s++] = opOff + i * nr;
                }
                hidden.apply(src, off, sc, nr, m0 + rg + r, c0);
                int tr = gOff + r * nr;
                for (int j = 0; j < nr; j++) {
                    h[hg + j * mr + r] = j < w ? t[tr + j] : 0f;
                }
            }
        }
    }

    /** Output columns of panel q for the block's rows. */
    private static void downPanel(float[] h, int np, int mr, int rows, int m0, int q, Weights down, Tensor out,
            LogicalTensor o, long[] batch) {
        int nr = Panels.NR;
        float[] c = tiles(nr * Panels.MRW);
        int c0 = q * nr;
        int w = Math.min(nr, down.cols - c0);
        long[] st = o.strides();
        long colStride = st[st.length - 1];
        int panel = q * down.rowsPadded * nr;
        for (int rg = 0; rg < rows; rg += mr) {
            int live = Math.min(mr, rows - rg);
            Panels.tileRows(h, rg * np, mr, live, np, down.packed, panel, c, 0);
            for (int r = 0; r < live; r++) {
                long base = Strides.offset(m0 + rg + r, batch, st, batch.length) + c0 * colStride;
                if (colStride == 1) {
                    MemorySegment.copy(c, r * nr, out.data(), ValueLayout.JAVA_FLOAT, base * 4, w);
                } else {
                    for (int j = 0; j < w; j++) {
                        out.data().setAtIndex(ValueLayout.JAVA_FLOAT, base + j * colStride, c[r * nr + j]);
                    }
                }
            }
        }
    }

    /** Buffer i of the calling thread's block buffers, grown to at least size floats. */
    private static float[] grow(float[][] bufs, int i, int size) {
        if (bufs[i].length < size) {
            bufs[i] = new float[size];
        }
        return bufs[i];
    }

    private static float[] tiles(int size) {
        float[] t = TILES.get();
        if (t.length < size) {
            t = new float[size];
            TILES.set(t);
        }
        return t;
    }

    private static void copyRow(MemorySegment s, long base, long stride, float[] dst, int off, int n) {
        if (stride == 1) {
            MemorySegment.copy(s, ValueLayout.JAVA_FLOAT, base * 4, dst, off, n);
        } else {
            for (int i = 0; i < n; i++) {
                dst[off + i] = s.getAtIndex(ValueLayout.JAVA_FLOAT, base + i * stride);
            }
        }
    }

    private static int toInt(long v) {
        if (v > Integer.MAX_VALUE / 8) {
            throw new UnsupportedFeatureException("dim " + v + " is beyond the fused MLP's limit");
        }
        return (int) v;
    }

    private Weights weights(List<Tensor> in, int port, boolean transposed, int rows) {
        return weights(in, port, transposed, rows, rows);
    }

    /** Packed weights [rows x cols] (rows padded): from the constant cache when constant. */
    private Weights weights(List<Tensor> in, int port, boolean transposed, int rows, int rowsPadded) {
        Tensor t = in.get(port);
        LogicalTensor lt = t.logicalTensor();
        long[] d = lt.dims();
        long[] s = lt.strides();
        int r = toInt(transposed ? d[1] : d[0]);
        int cols = toInt(transposed ? d[0] : d[1]);
        if (r != rows) {
            throw new UnsupportedFeatureException("weights " + lt.id() + " " + LogicalTensor.dimsToString(d)
                    + " do not match " + rows + " input columns");
        }
        long rowStride = transposed ? s[1] : s[0];
        long colStride = transposed ? s[0] : s[1];
        long length = Panels.length(rowsPadded, cols);
        if (length > Integer.MAX_VALUE - 16) {
            throw new UnsupportedFeatureException("weights " + lt.id() + " " + LogicalTensor.dimsToString(d)
                    + " are beyond the fused MLP's limit of 2^31 packed floats");
        }
        if (lt.isConstant() && cache != null) {
            CacheKey key = new CacheKey(backendId, new PackedKey(id, port, lt, SourceMemory.of(t.data())));
            long bytes = length * Float.BYTES;
            Lease lease = cache.getOrAdd(key, bytes, 2 * bytes, () -> {
                forgetDeadSources();
                added.add(key);
                float[] packed = new float[(int) length];
                Panels.pack(t.data(), 0, rowStride, colStride, r, cols, rowsPadded, packed, 0);
                return new PackedPanels(packed);
            }, null);
            return new Weights(PackedPanels.of(lease), cols, rowsPadded, lease);
        }
        float[] packed = new float[(int) length];
        Panels.pack(t.data(), 0, rowStride, colStride, r, cols, rowsPadded, packed, 0);
        return new Weights(packed, cols, rowsPadded, null);
    }

    private void forgetDeadSources() {
        for (CacheKey k : added) {
            if (!((PackedKey) k.backendKey()).source().isAlive()) {
                cache.removeIfExist(k);
                added.remove(k);
            }
        }
    }

    /** Drops the packed weights this program put into the constant cache. */
    @Override
    public void close() {
        for (CacheKey k : added) {
            cache.removeIfExist(k);
        }
        added.clear();
    }

    /** Packed weights and the lease keeping them alive for one execution. */
    private record Weights(float[] packed, int cols, int rowsPadded, Lease lease) implements AutoCloseable {
        @Override
        public void close() {
            if (lease != null) {
                lease.close();
            }
        }
    }

    /** Hidden-activation operands (bias, scales) broadcast to the hidden dims, staged per tile row. */
    private final class OperandRows {
        private final MemorySegment[] data;
        private final long[][] strides;
        private final long[] hiddenDims;

        OperandRows(List<Tensor> in, long[] hiddenDims) {
            this.hiddenDims = hiddenDims;
            data = new MemorySegment[operands.size()];
            strides = new long[operands.size()][];
            for (int i = 0; i < data.length; i++) {
                Tensor t = in.get(operands.get(i).port());
                data[i] = t.data();
                strides[i] = Strides.broadcast(t.logicalTensor().dims(), t.logicalTensor().strides(), hiddenDims);
            }
        }

        void stage(int i, int row, int c0, int w, float[] dst, int off) {
            long[] st = strides[i];
            int b = hiddenDims.length - 1;
            long base = Strides.offset(row, hiddenDims, st, b) + c0 * st[b];
            long cs = st[b];
            for (int j = 0; j < w; j++) {
                dst[off + j] = data[i].getAtIndex(ValueLayout.JAVA_FLOAT, base + j * cs);
            }
            Arrays.fill(dst, off + w, off + Panels.NR, 0f);
        }
    }
}
