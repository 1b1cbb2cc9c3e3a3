package io.partita.graph;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Op kinds of the oneDNN Graph op set, named exactly as oneDNN names them (so oneDNN graph dumps
 * load unchanged), plus {@link #DynamicReshape} and {@link #DynamicTranspose} for shapes known
 * only at execution.
 */
@SuppressWarnings("java:S115") // constant names follow oneDNN's spelling on purpose
public enum OpKind {
    Abs, AbsBackward, Add, AvgPool, AvgPoolBackward,
    BatchNormForwardTraining, BatchNormInference, BatchNormTrainingBackward,
    BiasAdd,
    /** Spelled {@code BiasAddBackprop} in graph JSON files, as oneDNN writes it. */
    BiasAddBackward("BiasAddBackprop"),
    Clamp, ClampBackward, Concat,
    Convolution, ConvolutionBackwardData, ConvolutionBackwardWeights,
    ConvTranspose, ConvTransposeBackwardData, ConvTransposeBackwardWeights,
    Dequantize, Divide, Dropout, DynamicDequantize, DynamicQuantize,
    DynamicReshape, DynamicTranspose,
    Elu, EluBackward, End, Exp,
    GELU, GELUBackward, GenIndex, GreaterEqual, GroupNorm,
    HardSigmoid, HardSigmoidBackward, HardSwish, HardSwishBackward,
    Interpolate, InterpolateBackward,
    LayerNorm, LayerNormBackward, LeakyReLU, Log, LogSoftmax, LogSoftmaxBackward,
    MatMul, Maximum, MaxPool, MaxPoolBackward, Minimum, Mish, MishBackward, Multiply,
    Pow, PReLU, PReLUBackward, Quantize,
    Reciprocal, ReduceL1, ReduceL2, ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceSum,
    ReLU, ReLUBackward, Reorder, RMSNorm, Round,
    Select, Sigmoid, SigmoidBackward, SoftMax, SoftMaxBackward, SoftPlus, SoftPlusBackward,
    Sqrt, SqrtBackward, Square, SquaredDifference, StaticReshape, StaticTranspose, Subtract,
    Tanh, TanhBackward, TypeCast, Wildcard,
    /**
     * Partita extension (not in oneDNN's op set; graph JSON using it does not load in oneDNN): the
     * error function, elementwise. Added for ONNX's {@code Erf}.
     */
    PartitaErf,
    /**
     * Partita extension (not in oneDNN's op set): {@code src_0 ^ src_1} elementwise with numpy
     * broadcasting, the exponent a tensor (oneDNN's {@code Pow} takes a constant {@code beta}).
     * Added for ONNX's {@code Pow} with a non-constant or non-uniform exponent.
     */
    PartitaPow,
    /**
     * Partita extension (not in oneDNN's op set): the s64 index of the largest value of src along
     * {@code axis} (the first one, or the last with {@code select_last_index}); {@code keep_dims}.
     * Added for ONNX's {@code ArgMax}.
     */
    PartitaArgMax,
    /** Partita extension: as {@link #PartitaArgMax}, the smallest value. Added for ONNX's {@code ArgMin}. */
    PartitaArgMin,
    /**
     * Partita extension (not in oneDNN's op set): a reduction (attribute {@code mode}: sum, mean, max,
     * min, prod, l1, l2, sum_square, log_sum, log_sum_exp) over the axes given by the s32/s64 input
     * {@code axes}, which may be known only at execution; empty axes reduce every axis. Added for
     * ONNX's Reduce* with run-time axes and the reductions oneDNN lacks.
     */
    PartitaReduce,
    /**
     * Partita extension (not in oneDNN's op set): ONNX's {@code Gather} with a run-time s32/s64
     * {@code indices} tensor (negative indices count from the end of {@code axis}).
     */
    PartitaGather,
    /** Partita extension: ONNX's {@code GatherElements} with a run-time indices tensor. */
    PartitaGatherElements,
    /**
     * Partita extension (not in oneDNN's op set): the boolean {@code src_0 MODE src_1} elementwise
     * with numpy broadcasting, attribute {@code mode} less, less_equal, greater, greater_equal or
     * equal. Added for ONNX's Less, LessOrEqual, Greater, GreaterOrEqual and Equal.
     */
    PartitaCompare,
    /**
     * Partita extension (not in oneDNN's op set): ONNX's {@code Slice} (10+) with s32/s64 inputs
     * {@code starts}, {@code ends}, {@code axes}, {@code steps}, which may be known only at execution.
     */
    PartitaSlice,
    /**
     * Partita extension: part {@code index} of ONNX's {@code Split} along {@code axis}, the part sizes
     * from the optional input {@code split} or {@code num_outputs} parts (the last one smaller).
     */
    PartitaSplit,
    /**
     * Partita extension: ONNX's {@code Pad} (mode constant, reflect, edge or wrap) with the s64 input
     * {@code pads} (begins then ends, per axis of the optional input {@code axes}, all when absent;
     * negative pads crop) and the scalar input {@code value}.
     */
    PartitaPad,
    /** Partita extension: ONNX's {@code Tile}, the s64 input {@code repeats} per axis. */
    PartitaTile,
    /** Partita extension: ONNX's {@code Expand}, src broadcast with the s64 input {@code shape} (numpy rules). */
    PartitaExpand,
    /**
     * Partita extension (not in oneDNN's op set): ONNX's {@code Resize} (11-19): nearest (four
     * rounding modes), linear and cubic interpolation, with antialias, exclude_outside, every
     * coordinate transformation mode and keep_aspect_ratio_policy; the output size from the
     * attribute {@code scales} or the s32/s64 input {@code sizes} (known only at execution too); the
     * optional f32 input {@code roi} for tf_crop_and_resize.
     */
    PartitaResize,
    /**
     * Partita extension (not in oneDNN's op set): a copy of src, of any data type (oneDNN's
     * {@code Reorder} takes floating-point types only). Used for ONNX graph outputs that are
     * integer or boolean constants or graph inputs.
     */
    PartitaCopy,
    /**
     * Partita extension (not in oneDNN's op set): the {@code k} largest (or smallest) values along
     * {@code axis} and their s64 indices, sorted, equal values in index order; {@code k} an s32/s64
     * input. Added for ONNX's {@code TopK}.
     */
    PartitaTopK,
    /** Partita extension: ONNX's {@code Squeeze} with s32/s64 {@code axes} known only at execution. */
    PartitaSqueeze,
    /** Partita extension: ONNX's {@code Unsqueeze} with s32/s64 {@code axes} known only at execution. */
    PartitaUnsqueeze,
    /**
     * Partita extension (not in oneDNN's op set): local response normalization across channels (axis
     * 1), ONNX's {@code LRN}: {@code x / (bias + alpha / size * sum of x^2 over the size channels
     * around)^beta}.
     */
    PartitaLRN,
    /**
     * Partita extension: ONNX's {@code CumSum} along the axis given by the integer scalar input
     * {@code axis} (attributes {@code exclusive}, {@code reverse}).
     */
    PartitaCumSum,
    /** Partita extension: the largest integer not above x, elementwise (ONNX's {@code Floor}). */
    PartitaFloor,
    /** Partita extension: the smallest integer not below x, elementwise (ONNX's {@code Ceil}). */
    PartitaCeil,
    /**
     * Partita extension (not in oneDNN's op set): {@code max(src_0, src_1)} elementwise with numpy
     * broadcasting for integer types (oneDNN's {@code Maximum} takes floating-point types).
     */
    PartitaMaximum,
    /** Partita extension: as {@link #PartitaMaximum}, the minimum. */
    PartitaMinimum,
    /**
     * Partita extension (not in oneDNN's op set): oneDNN's {@code Select} for integer and boolean
     * values ({@code cond ? src_0 : src_1} with numpy broadcasting). Added for ONNX's {@code Where}.
     */
    PartitaSelect,
    /**
     * Partita extension (not in oneDNN's op set): ONNX's {@code Einsum}, the sum of products of its
     * variadic inputs given by the string attribute {@code equation} (explicit {@code ->} or implicit
     * output, {@code ...} for broadcast dims, repeated labels for diagonals).
     */
    PartitaEinsum,
    /**
     * Partita extension (not in oneDNN's op set): ONNX's {@code MaxUnpool}, src's values scattered to
     * the flat positions of the s64 input {@code indices} in a zero tensor of the shape pooling with
     * {@code kernel}, {@code strides} and {@code pads_begin} / {@code pads_end} inverts, placed at the
     * start of the dims of the optional s64 input {@code output_shape}.
     */
    PartitaMaxUnpool,
    /**
     * Partita extension (not in oneDNN's op set): ONNX's {@code Cast} to or from Partita's extension
     * data types (f64, s16, u16, u64): floating-point to integer truncates toward zero, then
     * saturates; other conversions round to nearest even.
     */
    PartitaCast,
    /**
     * Partita extension (not in oneDNN's op set): ONNX's {@code Range} with bounds known only at
     * execution: the 1-D sequence {@code start + i * delta} for {@code i} below
     * {@code max(ceil((limit - start) / delta), 0)}, from three integer scalars (its length is then a
     * value the runtime reads, as it does other shape values).
     */
    PartitaRange;

    private static final Map<String, OpKind> BY_SPELLING = new HashMap<>();

    static {
        for (OpKind k : values()) {
            BY_SPELLING.put(k.spelling, k);
            BY_SPELLING.put(k.name(), k);
        }
    }

    private final String spelling;

    OpKind() {
        this.spelling = name();
    }

    OpKind(String spelling) {
        this.spelling = spelling;
    }

    /** Whether this kind is a Partita extension, absent from oneDNN's op set. */
    public boolean isPartitaExtension() {
        return name().startsWith("Partita");
    }

    /** The kind as written in oneDNN graph JSON files. */
    public String spelling() {
        return spelling;
    }

    /**
     * Parses a kind as written in oneDNN graph JSON (or its C++ enum name).
     *
     * @throws IllegalArgumentException naming the text when it is not a known kind
     */
    public static OpKind fromSpelling(String text) {
        OpKind k = BY_SPELLING.get(text);
        if (k == null) {
            throw new IllegalArgumentException("unknown op kind '" + text + "'; known kinds: "
                    + Arrays.stream(values()).map(OpKind::spelling).sorted().toList());
        }
        return k;
    }
}
