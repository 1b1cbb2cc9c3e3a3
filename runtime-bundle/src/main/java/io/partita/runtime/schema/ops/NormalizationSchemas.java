package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static io.partita.graph.LogicalTensor.dimsToString;
import static io.partita.runtime.schema.ops.NormReduceShapes.auxTypes;
import static io.partita.runtime.schema.ops.NormReduceShapes.channelAxis;
import static io.partita.runtime.schema.ops.NormReduceShapes.checkPerChannel;
import static io.partita.runtime.schema.ops.NormReduceShapes.requireBoth;

import java.util.Arrays;
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

/**
 * BatchNormInference, BatchNormForwardTraining, BatchNormTrainingBackward, LayerNorm,
 * LayerNormBackward, GroupNorm and RMSNorm. Ports, attributes and defaults follow oneDNN's op
 * definitions: src/dst (and diffs of them) share one data type T1; scale, shift and statistics
 * share T2, which is f32 or the src data type.
 */
final class NormalizationSchemas {
    private NormalizationSchemas() {
    }

    private static final DataType[] FLOAT_TYPES = {DataType.F32, DataType.BF16, DataType.F16};

    private static AttrSpec epsilon(boolean required) {
        AttrSpec s = required ? AttrSpec.required("epsilon", AttrType.F32)
                : AttrSpec.withDefault("epsilon", AttrValue.of(1e-5f));
        return s.checked(v -> v.asFloat() >= 0 && Float.isFinite(v.asFloat()), "a non-negative finite f32");
    }

    private static OpSchemaImpl.Builder builder(OpKind kind) {
        return OpSchemaImpl.builder(kind).typeVar("T1", FLOAT_TYPES).typeVar("T2", FLOAT_TYPES);
    }

    static void register(Consumer<OpSchemaImpl> r) {
        r.accept(builder(OpKind.BatchNormInference)
                .input("src", "T1")
                .input("gamma", "T2")
                .input("beta", "T2")
                .input("mean", "T2")
                .input("variance", "T2", ValueDomain.POSITIVE)
                .output("dst", "T1")
                .attr(epsilon(true))
                .attr("data_format", "NXC", "NCX", "NXC")
                .validator(auxTypes(1, 1))
                .shape(ctx -> inferBatchNorm(ctx, 1, new String[] {"gamma", "beta", "mean", "variance"}, false))
                .build());
        r.accept(builder(OpKind.BatchNormForwardTraining)
                .input("src", "T1")
                .input("mean", "T2")
                .input("variance", "T2", ValueDomain.POSITIVE)
                .optionalInput("gamma", "T2")
                .optionalInput("beta", "T2")
                .output("dst", "T1")
                .output("running_mean", "T2")
                .output("running_variance", "T2")
                .output("batch_mean", "T2")
                .output("batch_variance", "T2")
                .attr(epsilon(true))
                .attr(AttrSpec.optional("momentum", AttrType.F32)
                        .checked(v -> v.asFloat() >= 0 && Float.isFinite(v.asFloat()), "a non-negative finite f32"))
                .attr("data_format", "NXC", "NCX", "NXC")
                .validator(op -> requireBoth(op, op.inputs().size() - 3, 1, "gamma and beta (inputs 3 and 4)"))
                .validator(auxTypes(1, 1))
                .shape(ctx -> inferBatchNorm(ctx, 1, new String[] {"mean", "variance", "gamma", "beta"}, false))
                .build());
        r.accept(builder(OpKind.BatchNormTrainingBackward)
                .input("src", "T1")
                .input("diff_dst", "T1")
                .input("mean", "T2")
                .input("variance", "T2", ValueDomain.POSITIVE)
                .optionalInput("gamma", "T2")
                .output("diff_src", "T1")
                .optionalOutput("diff_gamma", "T2")
                .optionalOutput("diff_beta", "T2")
                .attr(epsilon(true))
                .attr("data_format", "NXC", "NCX", "NXC")
                .validator(op -> requireBoth(op, op.outputs().size() - 1, 1, "diff_gamma and diff_beta (outputs 1 and 2)"))
                .validator(auxTypes(2, 1))
                .shape(ctx -> inferBatchNorm(ctx, 2, new String[] {"mean", "variance", "gamma"}, true))
                .build());
        r.accept(builder(OpKind.LayerNorm)
                .input("src", "T1")
                .optionalInput("gamma", "T2")
                .optionalInput("beta", "T2")
                .output("dst", "T1")
                .optionalOutput("mean", "T2")
                .optionalOutput("variance", "T2")
                .attr("keep_stats", true)
                .attr("begin_norm_axis", -1L)
                .attr("use_affine", true)
                .attr(epsilon(false))
                .validator(NormalizationSchemas::checkForwardPorts)
                .validator(auxTypes(1, 1))
                .shape(NormalizationSchemas::inferLayerNorm)
                .build());
        r.accept(builder(OpKind.LayerNormBackward)
                .input("src", "T1")
                .input("diff_dst", "T1")
                .input("mean", "T2")
                .input("variance", "T2", ValueDomain.POSITIVE)
                .optionalInput("gamma", "T2")
                .optionalInput("beta", "T2")
                .output("diff_src", "T1")
                .optionalOutput("diff_gamma", "T2")
                .optionalOutput("diff_beta", "T2")
                .attr("begin_norm_axis", -1L)
                .attr("use_affine", true)
                .attr(epsilon(false))
                .validator(NormalizationSchemas::checkLayerNormBackwardPorts)
                .validator(auxTypes(2, 1))
                .shape(NormalizationSchemas::inferLayerNormBackward)
                .build());
        r.accept(builder(OpKind.GroupNorm)
                .input("src", "T1")
                .optionalInput("gamma", "T2")
                .optionalInput("beta", "T2")
                .output("dst", "T1")
                .optionalOutput("mean", "T2")
                .optionalOutput("variance", "T2")
                .attr("keep_stats", true)
                .attr(AttrSpec.required("groups", AttrType.S64).checked(v -> v.asLong() >= 1, "a positive s64"))
                .attr("use_affine", true)
                .attr(epsilon(false))
                .attr("data_format", "NXC", "NCX", "NXC")
                .validator(NormalizationSchemas::checkForwardPorts)
                .validator(auxTypes(1, 1))
                .shape(NormalizationSchemas::inferGroupNorm)
                .build());
        r.accept(builder(OpKind.RMSNorm)
                .input("src", "T1")
                .optionalInput("gamma", "T2")
                .output("dst", "T1")
                .optionalOutput("rrms", "T2")
                .attr("begin_norm_axis", -1L)
                .attr(epsilon(false))
                .validator(auxTypes(1, 1))
                .shape(NormalizationSchemas::inferRmsNorm)
                .build());
    }

    /**
     * BatchNorm*: src of rank >= 2 with channel C per data_format; the auxiliary inputs from
     * {@code firstAux} are 1-D [C]; output 0 has the src dims (merged with diff_dst for the
     * backward op), every other output is [C].
     */
    private static void inferBatchNorm(ShapeContext ctx, int firstAux, String[] auxNames, boolean backward) {
        ctx.requireMinRank(0, 2);
        long[] src = backward ? NormReduceShapes.mergeSame(ctx, 0, 1, "src", "diff_dst") : ctx.dims(0);
        if (src != null && src.length < 2) {
            throw ctx.error("diff_dst " + dimsToString(src) + " has rank " + src.length + "; expected at least 2");
        }
        String fmt = ctx.op().stringAttr("data_format");
        long c = src == null ? UNKNOWN_DIM : src[channelAxis(fmt, src.length)];
        String whatC = "the channel count C of src " + (src == null ? "" : dimsToString(src) + " ") + "(data_format "
                + fmt + ")";
        for (int i = 0; i < auxNames.length; i++) {
            c = checkPerChannel(ctx, firstAux + i, auxNames[i], c, whatC);
        }
        if (src != null) {
            ctx.setOutput(0, src);
        }
        for (int k = 1; k < ctx.outputCount(); k++) {
            ctx.setOutput(k, c);
        }
    }

    /** LayerNorm/GroupNorm: gamma and beta together, mean and variance together, as the attributes say. */
    private static void checkForwardPorts(Op op) {
        requireBoth(op, op.inputs().size() - 1, 1, "gamma and beta (inputs 1 and 2)");
        requireBoth(op, op.outputs().size() - 1, 1, "mean and variance (outputs 1 and 2)");
        if (op.boolAttr("keep_stats") && op.outputs().size() != 3) {
            throw new InvalidGraphException(op.id(), op.describe() + ": keep_stats is true but the op has "
                    + op.outputs().size() + " output(s); expected 3 (dst, mean, variance)");
        }
        if (op.boolAttr("use_affine") && op.inputs().size() != 3) {
            throw new InvalidGraphException(op.id(), op.describe() + ": use_affine is true but the op has "
                    + op.inputs().size() + " input(s); expected 3 (src, gamma, beta)");
        }
    }

    private static void checkLayerNormBackwardPorts(Op op) {
        requireBoth(op, op.outputs().size() - 1, 1, "diff_gamma and diff_beta (outputs 1 and 2)");
        if (op.boolAttr("use_affine")) {
            if (op.outputs().size() != 3) {
                throw new InvalidGraphException(op.id(), op.describe() + ": use_affine is true but the op has "
                        + op.outputs().size() + " output(s); expected 3 (diff_src, diff_gamma, diff_beta)");
            }
            if (op.inputs().size() < 5) {
                throw new InvalidGraphException(op.id(), op.describe() + ": use_affine is true but the op has "
                        + op.inputs().size() + " inputs; expected gamma as input 4");
            }
        }
    }

    private static void inferLayerNorm(ShapeContext ctx) {
        ctx.requireMinRank(0, 1);
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        int b = NormReduceShapes.beginNormAxis(ctx, src.length);
        long[] norm = Arrays.copyOfRange(src, b, src.length);
        NormReduceShapes.checkNormalizedParam(ctx, 1, "gamma", norm, src, b);
        NormReduceShapes.checkNormalizedParam(ctx, 2, "beta", norm, src, b);
        ctx.setOutput(0, src);
        for (int k = 1; k < ctx.outputCount(); k++) {
            ctx.setOutput(k, Arrays.copyOf(src, b));
        }
    }

    private static void inferLayerNormBackward(ShapeContext ctx) {
        ctx.requireMinRank(0, 1);
        long[] src = NormReduceShapes.mergeSame(ctx, 0, 1, "src", "diff_dst");
        if (src == null) {
            return;
        }
        if (src.length < 1) {
            throw ctx.error("src has rank 0; expected at least 1");
        }
        int b = NormReduceShapes.beginNormAxis(ctx, src.length);
        long[] stats = Arrays.copyOf(src, b);
        String[] statNames = {"mean", "variance"};
        for (int i = 0; i < 2; i++) {
            long[] d = ctx.dims(2 + i);
            if (d != null && (d.length != b || !mergeable(d, stats))) {
                throw ctx.error(statNames[i] + " (input " + (2 + i) + ") has dims " + dimsToString(d)
                        + "; expected the leading dims " + dimsToString(stats) + " of src " + dimsToString(src)
                        + " (begin_norm_axis " + ctx.op().longAttr("begin_norm_axis") + ")");
            }
        }
        long[] norm = Arrays.copyOfRange(src, b, src.length);
        NormReduceShapes.checkNormalizedParam(ctx, 4, "gamma", norm, src, b);
        NormReduceShapes.checkNormalizedParam(ctx, 5, "beta", norm, src, b);
        ctx.setOutput(0, src);
        long[] paramDims = ctx.hasInput(4) && ctx.dims(4) != null ? ctx.dims(4) : norm;
        for (int k = 1; k < ctx.outputCount(); k++) {
            ctx.setOutput(k, paramDims);
        }
    }

    private static boolean mergeable(long[] a, long[] b) {
        for (int i = 0; i < a.length; i++) {
            if (Dims.merge(a[i], b[i]) == null) {
                return false;
            }
        }
        return true;
    }

    /** GroupNorm: C divisible by groups; gamma/beta [C]; mean/variance [N, groups]. */
    private static void inferGroupNorm(ShapeContext ctx) {
        ctx.requireMinRank(0, 2);
        long[] src = ctx.dims(0);
        long groups = ctx.op().longAttr("groups");
        String fmt = ctx.op().stringAttr("data_format");
        long c = src == null ? UNKNOWN_DIM : src[channelAxis(fmt, src.length)];
        String whatC = "the channel count C of src " + (src == null ? "" : dimsToString(src) + " ") + "(data_format "
                + fmt + ")";
        c = checkPerChannel(ctx, 1, "gamma", c, whatC);
        c = checkPerChannel(ctx, 2, "beta", c, whatC);
        if (c >= 0 && c % groups != 0) {
            throw ctx.error("groups " + groups + " does not divide " + whatC + " = " + c
                    + "; expected a divisor of C");
        }
        if (src == null) {
            return;
        }
        ctx.setOutput(0, src);
        for (int k = 1; k < ctx.outputCount(); k++) {
            ctx.setOutput(k, src[0], groups);
        }
    }

    /** RMSNorm: gamma broadcasts to src; rrms has the leading (not normalized) dims. */
    private static void inferRmsNorm(ShapeContext ctx) {
        ctx.requireMinRank(0, 1);
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        int b = NormReduceShapes.beginNormAxis(ctx, src.length);
        if (ctx.hasInput(1)) {
            long[] g = ctx.dims(1);
            if (g != null && !NormReduceShapes.broadcastsTo(g, src)) {
                throw ctx.error("gamma (input 1) has dims " + dimsToString(g) + " which do not broadcast to src "
                        + dimsToString(src) + "; expected dims broadcastable to src (numpy rules)");
            }
        }
        ctx.setOutput(0, src);
        if (ctx.outputCount() > 1) {
            ctx.setOutput(1, Arrays.copyOf(src, b));
        }
    }
}
