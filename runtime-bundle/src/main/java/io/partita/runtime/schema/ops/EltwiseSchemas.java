package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.function.Consumer;

import io.partita.graph.AttrType;
import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.AttrSpec;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ShapeContext;
import io.partita.runtime.schema.ShapeRules;

/**
 * Unary elementwise ops (forward and backward), following oneDNN Graph's op definitions.
 *
 * <p>Forward ops take {@code src} and give {@code dst} of the same dims and data type. Backward ops
 * take input 0 ({@code src}, or {@code src/dst} for kinds with a {@code use_dst} attribute: the
 * forward op's dst when {@code use_dst} is true, its default) and {@code diff_dst}, and give
 * {@code diff_src}; all three share dims and data type (f32, bf16 or f16).
 */
public final class EltwiseSchemas {
    private EltwiseSchemas() {
    }

    /** Input 0 of the backward kinds that have a {@code use_dst} attribute. */
    static final String SRC_OR_DST = "src/dst";

    public static void register(Consumer<OpSchemaImpl> r) {
        // Forward ops without attributes.
        r.accept(forward(OpKind.Abs).build());
        r.accept(forward(OpKind.Exp).build());
        r.accept(forward(OpKind.HardSwish).build());
        r.accept(forward(OpKind.Log, ValueDomain.POSITIVE).build());
        r.accept(forward(OpKind.Mish).build());
        r.accept(forward(OpKind.Reciprocal, ValueDomain.NON_ZERO).build());
        r.accept(forward(OpKind.ReLU).build());
        r.accept(forward(OpKind.Round).build());
        r.accept(forward(OpKind.Sigmoid).build());
        r.accept(forward(OpKind.Sqrt, ValueDomain.POSITIVE).build());
        r.accept(forward(OpKind.Square).build());
        r.accept(forward(OpKind.Tanh).build());
        // Partita extension (ONNX Erf): not in oneDNN's op set.
        r.accept(forward(OpKind.PartitaErf).build());

        // Forward ops with attributes.
        r.accept(forward(OpKind.Clamp)
                .requiredAttr("min", AttrType.F32)
                .requiredAttr("max", AttrType.F32)
                .validator(EltwiseSchemas::minNotAboveMax)
                .build());
        r.accept(forward(OpKind.Elu).attr(nonNegative(AttrSpec.required("alpha", AttrType.F32))).build());
        r.accept(forward(OpKind.GELU).attr(geluMode()).build());
        r.accept(forward(OpKind.HardSigmoid)
                .requiredAttr("alpha", AttrType.F32)
                .requiredAttr("beta", AttrType.F32)
                .build());
        r.accept(forward(OpKind.LeakyReLU).requiredAttr("alpha", AttrType.F32).build());
        r.accept(forward(OpKind.SoftPlus).attr(softPlusBeta()).build());

        // Backward ops computing from src only.
        r.accept(backward(OpKind.AbsBackward, "src", ValueDomain.ANY).build());
        r.accept(backward(OpKind.GELUBackward, "src", ValueDomain.ANY).attr(geluMode()).build());
        r.accept(backward(OpKind.HardSigmoidBackward, "src", ValueDomain.ANY)
                .requiredAttr("alpha", AttrType.F32)
                .requiredAttr("beta", AttrType.F32)
                .build());
        r.accept(backward(OpKind.HardSwishBackward, "src", ValueDomain.ANY).build());
        r.accept(backward(OpKind.MishBackward, "src", ValueDomain.ANY).build());
        r.accept(backward(OpKind.SoftPlusBackward, "src", ValueDomain.ANY)
                .attr(softPlusBeta())
                .build());

        // Backward ops computing from src or, with use_dst (default true), from the forward dst.
        r.accept(backward(OpKind.ClampBackward, SRC_OR_DST, ValueDomain.ANY)
                .requiredAttr("min", AttrType.F32)
                .requiredAttr("max", AttrType.F32)
                .attr("use_dst", true)
                .validator(EltwiseSchemas::minNotAboveMax)
                .build());
        r.accept(backward(OpKind.EluBackward, SRC_OR_DST, ValueDomain.ANY)
                .attr(nonNegative(AttrSpec.required("alpha", AttrType.F32)))
                .attr("use_dst", true)
                .build());
        r.accept(backward(OpKind.ReLUBackward, SRC_OR_DST, ValueDomain.ANY).attr("use_dst", true).build());
        r.accept(backward(OpKind.SigmoidBackward, SRC_OR_DST, ValueDomain.ANY).attr("use_dst", true).build());
        r.accept(backward(OpKind.SqrtBackward, SRC_OR_DST, ValueDomain.POSITIVE).attr("use_dst", true).build());
        r.accept(backward(OpKind.TanhBackward, SRC_OR_DST, ValueDomain.ANY).attr("use_dst", true).build());
    }

    private static OpSchemaImpl.Builder forward(OpKind kind) {
        return forward(kind, ValueDomain.ANY);
    }

    private static OpSchemaImpl.Builder forward(OpKind kind, ValueDomain domain) {
        return OpSchemaImpl.builder(kind)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T", domain)
                .output("dst", "T")
                .shape(ShapeRules::sameAsFirstInput);
    }

    private static OpSchemaImpl.Builder backward(OpKind kind, String input0, ValueDomain domain0) {
        return OpSchemaImpl.builder(kind)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input(input0, "T", domain0)
                .input("diff_dst", "T")
                .output("diff_src", "T")
                .shape(EltwiseSchemas::inferBackward);
    }

    private static AttrSpec geluMode() {
        return AttrSpec.withDefault("mode", AttrValue.of("gelu_erf")).oneOf("gelu_erf", "gelu_tanh");
    }

    /** SoftPlus's beta (default 1) divides: 0 has no meaning. */
    private static AttrSpec softPlusBeta() {
        return nonZero(AttrSpec.withDefault("beta", AttrValue.of(1.0f)));
    }

    private static AttrSpec nonNegative(AttrSpec spec) {
        return spec.checked(v -> v.asFloat() >= 0, "a non-negative f32 value");
    }

    private static AttrSpec nonZero(AttrSpec spec) {
        return spec.checked(v -> v.asFloat() != 0 && !Float.isNaN(v.asFloat()), "a non-zero f32 value");
    }

    /** oneDNN's clip needs {@code max >= min}. */
    static void minNotAboveMax(Op op) {
        float min = op.floatAttr("min");
        float max = op.floatAttr("max");
        if (!(min <= max)) {
            throw new InvalidGraphException(op.id(), op.describe() + ": attribute 'min' = " + min
                    + " must not be greater than 'max' = " + max);
        }
    }

    /**
     * diff_src has the dims of input 0 (src or dst); diff_dst must have the same dims. A dim
     * unknown on input 0 is taken from diff_dst; a dynamic dim of input 0 stays dynamic.
     */
    static void inferBackward(ShapeContext ctx) {
        long[] a = ctx.dims(0);
        long[] b = ctx.dims(1);
        if (a == null || b == null) {
            ctx.setOutput(0, a == null ? b : a);
            return;
        }
        String what = "input 0 (" + input0Role(ctx.op()) + ") " + dimsToString(a) + " and input 1 (diff_dst) "
                + dimsToString(b) + " must have the same dims";
        if (a.length != b.length) {
            throw ctx.error(what + "; their ranks differ");
        }
        long[] out = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            Long m = Dims.merge(a[i], b[i]);
            if (m == null) {
                throw ctx.error(what + "; they differ at dim " + i);
            }
            out[i] = a[i] == DYNAMIC_DIM ? DYNAMIC_DIM : m;
        }
        ctx.setOutput(0, out);
    }

    /** What input 0 of a backward op holds: the forward dst when use_dst is set, else the forward src. */
    static String input0Role(Op op) {
        return op.hasAttr("use_dst") && op.boolAttr("use_dst") ? "dst" : "src";
    }
}
