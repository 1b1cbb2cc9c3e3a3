package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.List;

import io.partita.backend.dnnl.internal.isa.Isa;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.UnsupportedFeatureException;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Local response normalization across channels (PartitaLRN, ONNX's and Caffe's LRN) on dense NCX
 * f32: {@code y = x / (bias + alpha / size * sum of x^2 over channels c - (size-1)/2 .. c + size/2)^beta}.
 * One task per (image, channel) plane: the window's squares are summed along the plane with
 * vectors, then every element is scaled. Caffe's beta 0.75 (every zoo network that has LRN) takes
 * the power as two square roots, exact to f32 rounding; other betas call {@link Math#pow}.
 */
public final class LrnPrimitive implements Primitive {
    private static final VectorSpecies<Float> S = Isa.FLOAT;
    private static final int L = Isa.LANES;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    /** Shape as (images, channels, elements per plane), the attributes and the ports: the primitive cache key. */
    public record Desc(long images, int channels, int plane, int size, float alpha, float beta, float bias,
            int srcInput) {
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, LogicalTensor dst) {
        LogicalTensor src = Views.port(inputs, op.input(0));
        if (!src.isDense()) {
            throw new UnsupportedFeatureException("dnnl: LRN reads a dense source; tensor " + src.id()
                    + " has strides " + java.util.Arrays.toString(src.strides()));
        }
        Views.requireDense(dst, "LRN");
        long[] dims = src.dims();
        long plane = Views.product(dims, 2, dims.length);
        if (plane > Integer.MAX_VALUE - 64 || dims[1] > Integer.MAX_VALUE) {
            throw new UnsupportedFeatureException("dnnl: LRN planes of " + plane + " elements");
        }
        long size = op.longAttr("size");
        return new Desc(dims[0], (int) dims[1], (int) plane, (int) Math.min(size, Integer.MAX_VALUE),
                op.floatAttr("alpha"), op.floatAttr("beta"), op.floatAttr("bias"), Views.indexOf(inputs, src.id()));
    }

    private final Desc d;
    private final int before;
    private final int after;
    private final float scale;

    public LrnPrimitive(Desc d) {
        this.d = d;
        this.before = (d.size() - 1) / 2;
        this.after = d.size() - 1 - before;
        this.scale = d.alpha() / d.size();
    }

    @Override
    public void execute(Invocation inv) {
        MemorySegment src = inv.in(d.srcInput());
        MemorySegment dst = inv.out(0);
        long planes = d.images() * d.channels();
        if (planes == 0 || d.plane() == 0) {
            return;
        }
        if (planes > Integer.MAX_VALUE) {
            throw new UnsupportedFeatureException("dnnl: LRN over " + planes + " planes");
        }
        Views.parallel(inv.pool(), (int) planes, planes * d.plane() * Math.min(d.size(), d.channels()), (p0, p1) -> {
            float[] acc = new float[d.plane()];
            for (int p = p0; p < p1; p++) {
                plane(src, dst, p / d.channels(), p % d.channels(), acc);
            }
        });
    }

    private void plane(MemorySegment src, MemorySegment dst, long image, int c, float[] acc) {
        int n = d.plane();
        java.util.Arrays.fill(acc, 0f);
        long first = image * d.channels();
        int lo = Math.max(0, c - before);
        int hi = Math.min(d.channels() - 1, c + after);
        int vec = n - n % L;
        for (int k = lo; k <= hi; k++) {
            long base = (first + k) * n * 4;
            int i = 0;
            for (; i < vec; i += L) {
                FloatVector x = FloatVector.fromMemorySegment(S, src, base + 4L * i, ORDER);
                x.fma(x, FloatVector.fromArray(S, acc, i)).intoArray(acc, i);
            }
            for (; i < n; i++) {
                float x = src.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, base / 4 + i);
                acc[i] += x * x;
            }
        }
        long at = (first + c) * n * 4;
        boolean caffe = d.beta() == 0.75f;
        int i = 0;
        if (caffe) {
            FloatVector bias = FloatVector.broadcast(S, d.bias());
            FloatVector k = FloatVector.broadcast(S, scale);
            for (; i < vec; i += L) {
                FloatVector den = FloatVector.fromArray(S, acc, i).fma(k, bias);
                FloatVector root = den.lanewise(VectorOperators.SQRT);
                FloatVector pow = root.mul(root.lanewise(VectorOperators.SQRT)); // den^0.75
                FloatVector.fromMemorySegment(S, src, at + 4L * i, ORDER).div(pow).intoMemorySegment(dst, at + 4L * i,
                        ORDER);
            }
        }
        for (; i < n; i++) {
            float x = src.get(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, at + 4L * i);
            float den = acc[i] * scale + d.bias();
            float pow = caffe ? (float) (Math.sqrt(den) * Math.sqrt(Math.sqrt(den))) : (float) Math.pow(den, d.beta());
            dst.set(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, at + 4L * i, x / pow);
        }
    }

    @Override
    public String toString() {
        return "lrn " + d;
    }
}
