package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.DataType;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.IndexParams;

/**
 * PartitaSlice and PartitaPad on dense f32: every output coordinate reads one source coordinate per
 * axis (or, for Pad's constant mode, the constant), so both are a per-axis index map decoded from
 * the run-time parameters through {@link IndexParams}, as the reference backend decodes them. The
 * innermost axis is cut into runs of consecutive source indices, copied as blocks; each output row
 * is then a few block copies and fills.
 */
public final class IndexMapPrimitive implements Primitive {

    /**
     * The op, source dims, pad mode and ports: the primitive cache key. The output dims are not in
     * it: they follow from the parameters, so the runtime gives them with each execution.
     */
    public record Desc(OpKind kind, long[] srcDims, String mode, int srcInput, int[] paramInputs,
            DataType[] paramTypes, int valueInput, String op) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Desc d && d.kind == kind && Arrays.equals(d.srcDims, srcDims)
                    && d.mode.equals(mode) && d.srcInput == srcInput
                    && Arrays.equals(d.paramInputs, paramInputs) && Arrays.equals(d.paramTypes, paramTypes)
                    && d.valueInput == valueInput && d.op.equals(op);
        }

        @Override
        public int hashCode() {
            return (kind.hashCode() * 31 + Arrays.hashCode(srcDims)) * 31 + op.hashCode();
        }
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, LogicalTensor dst) {
        LogicalTensor src = Views.port(inputs, op.input(0));
        if (!src.isDense()) {
            throw new UnsupportedFeatureException("dnnl: " + op.kind() + " reads a dense source; tensor " + src.id()
                    + " has strides " + Arrays.toString(src.strides()));
        }
        boolean slice = op.kind() == OpKind.PartitaSlice;
        List<Integer> params = new ArrayList<>();
        List<DataType> types = new ArrayList<>();
        for (int i = 1; i < op.inputs().size(); i++) {
            if (!slice && i == 2) {
                continue; // the pad value
            }
            LogicalTensor p = Views.port(inputs, op.input(i));
            params.add(Views.indexOf(inputs, p.id()));
            types.add(p.dataType());
        }
        int value = slice ? -1 : Views.indexOf(inputs, op.input(2).id());
        return new Desc(op.kind(), src.dims(), slice ? "" : op.stringAttr("mode"),
                Views.indexOf(inputs, src.id()), params.stream().mapToInt(Integer::intValue).toArray(),
                types.toArray(DataType[]::new), value, op.describe());
    }

    /** A run of the innermost axis: {@code length} outputs from {@code at} read source {@code from}, +1 each (-1: the constant). */
    private record Run(int at, long from, int length) {
    }

    private final Desc d;

    public IndexMapPrimitive(Desc d) {
        this.d = d;
    }

    @Override
    public void execute(Invocation inv) {
        LogicalTensor dstLt = inv.outLt(0);
        if (!dstLt.isDense()) {
            throw new InvalidArgumentException(d.op() + ": output tensor " + dstLt.id() + " has strides "
                    + Arrays.toString(dstLt.strides()) + "; the dnnl backend writes it densely");
        }
        long[] out = dstLt.dims();
        int rank = out.length;
        long total = Views.product(out, 0, rank);
        long[][] map = d.kind() == OpKind.PartitaSlice ? sliceMap(inv, out) : padMap(inv, out);
        if (total == 0) {
            return;
        }
        float fill = d.valueInput() < 0 ? 0 : inv.in(d.valueInput()).get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0);
        if (rank == 0) {
            inv.out(0).set(ValueLayout.JAVA_FLOAT_UNALIGNED, 0, inv.in(d.srcInput()).get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0));
            return;
        }
        List<Run> runs = runs(map[rank - 1]);
        long[] srcStrides = LogicalTensor.denseStrides(d.srcDims());
        long width = out[rank - 1];
        long rows = total / width;
        if (rows > Integer.MAX_VALUE) {
            throw new UnsupportedFeatureException("dnnl: " + d.op() + " writes " + rows + " rows");
        }
        MemorySegment src = inv.in(d.srcInput());
        MemorySegment dst = inv.out(0);
        Views.parallel(inv.pool(), (int) rows, total, (r0, r1) -> {
            for (long r = r0; r < r1; r++) {
                long base = 0;
                long rest = r;
                for (int a = rank - 2; a >= 0; a--) {
                    long s = map[a][(int) (rest % out[a])];
                    rest /= out[a];
                    if (s < 0) {
                        base = -1;
                        break;
                    }
                    base += s * srcStrides[a];
                }
                long at = r * width * 4;
                if (base < 0) {
                    fillFloats(dst, at, width, fill);
                    continue;
                }
                for (Run run : runs) {
                    long to = at + 4L * run.at();
                    if (run.from() < 0) {
                        fillFloats(dst, to, run.length(), fill);
                    } else {
                        MemorySegment.copy(src, 4 * (base + run.from()), dst, to, 4L * run.length());
                    }
                }
            }
        });
    }

    private static void fillFloats(MemorySegment dst, long at, long n, float v) {
        if (v == 0 && Float.floatToRawIntBits(v) == 0) {
            dst.asSlice(at, 4 * n).fill((byte) 0);
            return;
        }
        for (long i = 0; i < n; i++) {
            dst.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at + 4 * i, v);
        }
    }

    /** The innermost axis map as runs of consecutive source indices (or of the constant). */
    private static List<Run> runs(long[] m) {
        List<Run> runs = new ArrayList<>();
        int i = 0;
        while (i < m.length) {
            int j = i + 1;
            while (j < m.length && (m[i] < 0 ? m[j] < 0 : m[j] == m[j - 1] + 1)) {
                j++;
            }
            runs.add(new Run(i, m[i], j - i));
            i = j;
        }
        return runs;
    }

    private long[] param(Invocation inv, int k) {
        MemorySegment s = inv.in(d.paramInputs()[k]);
        long n = inv.inLt(d.paramInputs()[k]).elementCount();
        long[] v = new long[Math.toIntExact(n)];
        for (int i = 0; i < v.length; i++) {
            v[i] = d.paramTypes()[k] == DataType.S64 ? s.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i)
                    : s.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
        }
        return v;
    }

    private InvalidArgumentException error(String what) {
        return new InvalidArgumentException(d.op() + ": " + what);
    }

    private long[][] sliceMap(Invocation inv, long[] out) {
        IndexParams.SliceAxis[] s = IndexParams.sliceAxes(d.srcDims(), param(inv, 0), param(inv, 1), param(inv, 2),
                param(inv, 3), this::error);
        long[][] map = new long[s.length][];
        for (int a = 0; a < s.length; a++) {
            requireCount(a, s[a].count(), out);
            map[a] = new long[(int) out[a]];
            for (int o = 0; o < map[a].length; o++) {
                map[a][o] = s[a].start() + o * s[a].step();
            }
        }
        return map;
    }

    private long[][] padMap(Invocation inv, long[] out) {
        long[] src = d.srcDims();
        long[][] p = IndexParams.padsPerAxis(src.length, param(inv, 0),
                d.paramInputs().length > 1 ? param(inv, 1) : new long[0], this::error);
        long[][] map = new long[src.length][];
        for (int a = 0; a < src.length; a++) {
            requireCount(a, src[a] + p[a][0] + p[a][1], out);
            if (src[a] == 0 && !d.mode().equals("constant") && out[a] > 0) {
                throw error("mode " + d.mode() + " pads an empty axis " + a + "; only constant padding can");
            }
            map[a] = new long[(int) out[a]];
            for (int o = 0; o < map[a].length; o++) {
                map[a][o] = IndexParams.padSource(d.mode(), o, p[a][0], src[a]);
            }
        }
        return map;
    }

    private void requireCount(int axis, long count, long[] out) {
        if (count != out[axis]) {
            throw error("its parameters give " + count + " elements along axis " + axis + " but the output has "
                    + out[axis] + " (output dims " + Arrays.toString(out) + ")");
        }
    }

    @Override
    public String toString() {
        return "index map " + d.kind() + " " + Arrays.toString(d.srcDims());
    }
}
