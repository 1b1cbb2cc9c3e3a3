package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.Arena;
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
     * Rows per block. Every block streams all weights once, so blocks are large (a BERT-sized
     * hidden block of 128 x 3072 is 1.5 MB); below it, rows share each weight panel while it is
     * in cache.
     */
    private static final int MB = 128;
    private static final AtomicLong IDS = new AtomicLong();
    private static final ThreadLocal<float[]> TILES = ThreadLocal.withInitial(() -> new float[0]);

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
        try (Arena arena = Arena.ofShared()) {
            for (int i = 0; i < up.length; i++) {
                up[i] = weights(in, upPorts[i], shape.up().get(i).boolAttr("transpose_b"), k, arena);
            }
            int n = up[0].cols;
            if (up.length == 2 && up[1].cols != n) {
                throw new UnsupportedFeatureException("gate and up projections have " + n + " and " + up[1].cols
                        + " columns");
            }
            int np = Panels.panels(n) * Panels.NR;
            Weights down = weights(in, downPort, shape.down().boolAttr("transpose_b"), n, np, arena);
            float[] sc = new float[scalars.size()];
            for (int i = 0; i < sc.length; i++) {
                sc[i] = in.get(scalars.get(i).port()).data().getAtIndex(ValueLayout.JAVA_FLOAT, 0);
            }
            long[] hiddenDims = Arrays.copyOf(batch, batch.length + 1);
            hiddenDims[batch.length] = n;
            OperandRows ops = new OperandRows(in, hiddenDims);
            LogicalTensor o = out.get(0).logicalTensor();
            MemorySegment xs = in.get(xPort).data();
            for (int m0 = 0; m0 < m; m0 += MB) {
                int rows = Math.min(MB, m - m0);
                int rowsP = (rows + Panels.MR - 1) / Panels.MR * Panels.MR;
                float[] xb = new float[rowsP * k];
                for (int r = 0; r < rows; r++) {
                    long base = Strides.offset(m0 + r, batch, x.strides(), batch.length);
                    copyRow(xs, base, x.strides()[xd.length - 1], xb, r * k, k);
                }
                float[] h = new float[rowsP * np];
                int block = m0;
                pool.forEach(Panels.panels(n), p -> upPanel(xb, k, rowsP, rows, block, p, up, n, np, h, ops, sc));
                pool.forEach(Panels.panels(down.cols), q -> downPanel(h, np, rowsP, rows, block, q, down, out.get(0),
                        o, batch));
            }
            for (Weights w : up) {
                w.close();
            }
            down.close();
        }
    }

    /** Hidden activation columns of panel p for the block's rows. */
    private void upPanel(float[] xb, int k, int rowsP, int rows, int m0, int p, Weights[] up, int n, int np, float[] h,
            OperandRows ops, float[] sc) {
        int nr = Panels.NR;
        float[] t = tiles(nr * Panels.MR * 2 + nr * (operands.size() + 1));
        int gOff = 0;
        int uOff = nr * Panels.MR;
        int opOff = 2 * nr * Panels.MR;
        float[][] src = new float[2 + operands.size()][];
        int[] off = new int[src.length];
        int c0 = p * nr;
        int w = Math.min(nr, n - c0);
        for (int rg = 0; rg < rowsP; rg += Panels.MR) {
            boolean one = rows - rg == 1;
            for (int u = 0; u < up.length; u++) {
                long panel = (long) p * up[u].rowsPadded * nr * 4;
                int dst = u == 0 ? gOff : uOff;
                if (one) {
                    Panels.tile1(xb, rg * k, k, up[u].packed, panel, t, dst);
                } else {
                    Panels.tile(xb, rg * k, k, k, up[u].packed, panel, t, dst);
                }
            }
            for (int r = 0; r < Panels.MR && rg + r < rows; r++) {
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
                System.arraycopy(t, gOff + r * nr, h, (rg + r) * np + c0, w);
            }
        }
    }

    /** Output columns of panel q for the block's rows. */
    private static void downPanel(float[] h, int np, int rowsP, int rows, int m0, int q, Weights down, Tensor out,
            LogicalTensor o, long[] batch) {
        int nr = Panels.NR;
        float[] c = tiles(nr * Panels.MR);
        int c0 = q * nr;
        int w = Math.min(nr, down.cols - c0);
        long[] st = o.strides();
        long colStride = st[st.length - 1];
        for (int rg = 0; rg < rowsP; rg += Panels.MR) {
            long panel = (long) q * down.rowsPadded * nr * 4;
            if (rows - rg == 1) {
                Panels.tile1(h, rg * np, np, down.packed, panel, c, 0);
            } else {
                Panels.tile(h, rg * np, np, np, down.packed, panel, c, 0);
            }
            for (int r = 0; r < Panels.MR && rg + r < rows; r++) {
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

    private Weights weights(List<Tensor> in, int port, boolean transposed, int rows, Arena arena) {
        return weights(in, port, transposed, rows, rows, arena);
    }

    /** Packed weights [rows x cols] (rows padded): from the constant cache when constant. */
    private Weights weights(List<Tensor> in, int port, boolean transposed, int rows, int rowsPadded, Arena arena) {
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
        long bytes = Panels.bytes(rowsPadded, cols);
        if (lt.isConstant() && cache != null) {
            CacheKey key = new CacheKey(backendId, new PackedKey(id, port, lt, SourceMemory.of(t.data())));
            Lease lease = cache.getOrAdd(key, bytes, 2 * bytes, () -> {
                forgetDeadSources();
                added.add(key);
                ConstantBuffer b = ConstantBuffer.allocateHost(bytes);
                Panels.pack(t.data(), 0, rowStride, colStride, r, cols, rowsPadded, b.segment());
                return b;
            }, null);
            return new Weights(lease.segment(), cols, rowsPadded, lease);
        }
        MemorySegment packed = arena.allocate(bytes, 64);
        Panels.pack(t.data(), 0, rowStride, colStride, r, cols, rowsPadded, packed);
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
    private record Weights(MemorySegment packed, int cols, int rowsPadded, Lease lease) implements AutoCloseable {
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
