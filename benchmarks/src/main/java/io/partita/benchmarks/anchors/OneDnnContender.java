package io.partita.benchmarks.anchors;

import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_BIAS;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_DST;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_SRC;
import static org.bytedeco.dnnl.global.dnnl.DNNL_ARG_WEIGHTS;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import org.bytedeco.dnnl.IntMemoryMap;
import org.bytedeco.dnnl.convolution_forward;
import org.bytedeco.dnnl.dnnl_version_t;
import org.bytedeco.dnnl.engine;
import org.bytedeco.dnnl.matmul;
import org.bytedeco.dnnl.memory;
import org.bytedeco.dnnl.post_ops;
import org.bytedeco.dnnl.primitive;
import org.bytedeco.dnnl.primitive_attr;
import org.bytedeco.dnnl.reorder;
import org.bytedeco.dnnl.stream;
import org.bytedeco.dnnl.global.dnnl;
import org.bytedeco.dnnl.global.dnnl.algorithm;
import org.bytedeco.dnnl.global.dnnl.prop_kind;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;

/**
 * Native oneDNN (through the JavaCPP presets), CPU engine. The thread count comes from the
 * {@code OMP_NUM_THREADS} environment variable of the child JVM (the presets' oneDNN uses the GNU
 * OpenMP runtime; there is no Java call for it), so {@link #prepare} fails if the variable does not
 * match the requested count.
 *
 * <p>Constant weights are declared with {@code format_tag::any} so the primitive picks its preferred
 * (blocked) layout; they are reordered into it once in {@link #prepare}. Activations stay plain:
 * matmul and MLP use {@code ab} source and destination; the convolution lets oneDNN choose its
 * source and destination layouts too and, when those are not NCHW, reorders the input and the
 * output inside {@link #runOnce} (set {@code -Danchors.onednn.conv=plain} to force NCHW on the
 * primitive itself instead).
 */
public final class OneDnnContender implements Contender {
    private final int threads;
    private final Deque<Pointer> owned = new ArrayDeque<>();
    private final List<primitive> steps = new ArrayList<>();
    private final List<IntMemoryMap> args = new ArrayList<>();
    private engine eng;
    private stream strm;
    private memory output;
    private int outputSize;
    private String impl = "";

    public OneDnnContender(int threads) {
        this.threads = threads;
    }

    @Override
    public String name() {
        return Contenders.ONEDNN;
    }

    @Override
    public String describe() {
        dnnl_version_t v = dnnl.dnnl_version();
        String hash = v.hash() == null ? "N/A" : v.hash().getString();
        return String.format("oneDNN %d.%d.%d%s (JavaCPP presets), isa %s, OMP_NUM_THREADS=%s%s",
                v.major(), v.minor(), v.patch(), hash.equals("N/A") ? "" : " " + hash, dnnl.get_effective_cpu_isa(),
                System.getenv("OMP_NUM_THREADS"), impl.isEmpty() ? "" : ", impl " + impl);
    }

    @Override
    public void prepare(Case c) {
        String omp = System.getenv("OMP_NUM_THREADS");
        if (omp == null || !omp.trim().equals(Integer.toString(threads))) {
            throw new IllegalStateException("oneDNN takes its thread count from OMP_NUM_THREADS; it is " + omp
                    + " but " + threads + " threads were requested (the anchors harness sets it for its child JVMs)");
        }
        eng = own(new engine(engine.kind.cpu, 0));
        strm = own(new stream(eng));
        switch (c) {
            case Case.MatMul mm -> {
                memory src = plain(new long[] {mm.m(), mm.k()}, c.src());
                output = plain(new long[] {mm.m(), mm.n()}, null);
                addMatMul(src, mm.weights(), null, false, output);
            }
            case Case.Mlp mlp -> {
                memory in = plain(new long[] {mlp.batch(), mlp.widths()[0]}, c.src());
                for (int l = 0; l < mlp.layers(); l++) {
                    memory out = plain(new long[] {mlp.batch(), mlp.widths()[l + 1]}, null);
                    addMatMul(in, mlp.weights(l), mlp.bias(l), mlp.relu(l), out);
                    in = out;
                }
                output = in;
            }
            case Case.Conv cv -> addConv(cv);
            case Case.Network net -> throw new IllegalArgumentException("the onednn contender does not run network case "
                    + net.name() + ": it builds primitives per op and has no ONNX importer; network cases compare with ort");
        }
        outputSize = c.outputSize();
    }

    /** {@code dst = act(src · W + bias)} with W row-major [K,N], prepacked into the primitive's layout. */
    private void addMatMul(memory src, float[] w, float[] bias, boolean relu, memory dst) {
        memory.desc srcMd = src.get_desc();
        memory.desc dstMd = dst.get_desc();
        long k = srcMd.get_dims().get(1);
        long n = dstMd.get_dims().get(1);
        memory.desc wAny = own(new memory.desc(new long[] {k, n}, memory.data_type.f32, memory.format_tag.any));
        primitive_attr attr = own(new primitive_attr());
        if (relu) {
            post_ops po = own(new post_ops());
            po.append_eltwise(algorithm.eltwise_relu, 0f, 0f);
            attr.set_post_ops(po);
        }
        memory biasMem = bias == null ? null : plain(new long[] {1, n}, bias);
        matmul.primitive_desc pd = own(bias == null
                ? new matmul.primitive_desc(eng, srcMd, wAny, dstMd, attr, false)
                : new matmul.primitive_desc(eng, srcMd, wAny, biasMem.get_desc(), dstMd, attr, false));
        note(pd.impl_info_str().getString());
        memory wMem = constant(new long[] {k, n}, memory.format_tag.ab, w, pd.weights_desc());
        IntMemoryMap a = own(new IntMemoryMap());
        a.put(DNNL_ARG_SRC, src);
        a.put(DNNL_ARG_WEIGHTS, wMem);
        if (biasMem != null) {
            a.put(DNNL_ARG_BIAS, biasMem);
        }
        a.put(DNNL_ARG_DST, dst);
        steps.add(own(new matmul(pd)));
        args.add(a);
    }

    private void addConv(Case.Conv cv) {
        boolean plainActs = "plain".equals(System.getProperty("anchors.onednn.conv", "any"));
        long[] srcDims = cv.srcShape();
        long[] dstDims = cv.outputShape();
        memory.format_tag actTag = plainActs ? memory.format_tag.nchw : memory.format_tag.any;
        memory.desc srcMd = own(new memory.desc(srcDims, memory.data_type.f32, actTag));
        memory.desc dstMd = own(new memory.desc(dstDims, memory.data_type.f32, actTag));
        memory.desc wMd = own(new memory.desc(cv.weightsShape(), memory.data_type.f32, memory.format_tag.any));
        memory biasMem = plain(new long[] {cv.k()}, cv.bias());
        long[] strides = {cv.stride(), cv.stride()};
        long[] pad = {cv.pad(), cv.pad()};
        convolution_forward.primitive_desc pd = own(new convolution_forward.primitive_desc(eng,
                prop_kind.forward_inference, algorithm.convolution_direct, srcMd, wMd, biasMem.get_desc(), dstMd,
                strides, pad, pad));
        note(pd.impl_info_str().getString());
        memory wMem = constant(cv.weightsShape(), memory.format_tag.oihw, cv.weights(), pd.weights_desc());

        memory userSrc = plain(srcDims, cv.src());
        memory userDst = plain(dstDims, null);
        memory src = userSrc;
        if (!pd.src_desc().equals(userSrc.get_desc())) {
            src = own(new memory(pd.src_desc(), eng));
            addReorder(userSrc, src);
        }
        memory dst = pd.dst_desc().equals(userDst.get_desc()) ? userDst : own(new memory(pd.dst_desc(), eng));
        IntMemoryMap a = own(new IntMemoryMap());
        a.put(DNNL_ARG_SRC, src);
        a.put(DNNL_ARG_WEIGHTS, wMem);
        a.put(DNNL_ARG_BIAS, biasMem);
        a.put(DNNL_ARG_DST, dst);
        steps.add(own(new convolution_forward(pd)));
        args.add(a);
        if (dst != userDst) {
            addReorder(dst, userDst);
        }
        output = userDst;
    }

    private void addReorder(memory from, memory to) {
        IntMemoryMap a = own(new IntMemoryMap());
        a.put(dnnl.DNNL_ARG_FROM, from);
        a.put(dnnl.DNNL_ARG_TO, to);
        steps.add(own(new reorder(from, to)));
        args.add(a);
        note("reorder");
    }

    /** A memory in the plain row-major layout of {@code dims}, filled with {@code data} if given. */
    private memory plain(long[] dims, float[] data) {
        memory.format_tag tag = switch (dims.length) {
            case 1 -> memory.format_tag.a;
            case 2 -> memory.format_tag.ab;
            case 4 -> memory.format_tag.abcd;
            default -> throw new IllegalArgumentException("rank " + dims.length);
        };
        memory m = own(new memory(own(new memory.desc(dims, memory.data_type.f32, tag)), eng));
        if (data != null) {
            new FloatPointer(m.get_data_handle()).put(data, 0, data.length);
        }
        return m;
    }

    /** The constant {@code data} (layout {@code tag}) in the layout {@code want}, reordered once. */
    private memory constant(long[] dims, memory.format_tag tag, float[] data, memory.desc want) {
        memory user = own(new memory(own(new memory.desc(dims, memory.data_type.f32, tag)), eng));
        new FloatPointer(user.get_data_handle()).put(data, 0, data.length);
        if (want.equals(user.get_desc())) {
            return user;
        }
        memory packed = own(new memory(want, eng));
        try (reorder r = new reorder(user, packed)) {
            r.execute(strm, user, packed);
        }
        strm._wait();
        return packed;
    }

    private void note(String s) {
        impl = impl.isEmpty() ? s : impl + "+" + s;
    }

    private <T extends Pointer> T own(T p) {
        owned.push(p);
        return p;
    }

    @Override
    public void runOnce() {
        for (int i = 0, n = steps.size(); i < n; i++) {
            steps.get(i).execute(strm, args.get(i));
        }
        strm._wait();
    }

    @Override
    public float[] output() {
        float[] out = new float[outputSize];
        new FloatPointer(output.get_data_handle()).get(out, 0, outputSize);
        return out;
    }

    @Override
    public void close() {
        steps.clear();
        args.clear();
        while (!owned.isEmpty()) {
            owned.pop().close();
        }
    }
}
