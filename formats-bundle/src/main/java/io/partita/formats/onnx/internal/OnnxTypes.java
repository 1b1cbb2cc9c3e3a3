package io.partita.formats.onnx.internal;

import io.partita.graph.DataType;

/** ONNX element types (TensorProto.DataType numbers) and the Partita data types they map to. */
public final class OnnxTypes {
    private OnnxTypes() {
    }

    public static final int FLOAT = 1;
    public static final int UINT8 = 2;
    public static final int INT8 = 3;
    public static final int UINT16 = 4;
    public static final int INT16 = 5;
    public static final int INT32 = 6;
    public static final int INT64 = 7;
    public static final int STRING = 8;
    public static final int BOOL = 9;
    public static final int FLOAT16 = 10;
    public static final int DOUBLE = 11;
    public static final int UINT32 = 12;
    public static final int UINT64 = 13;
    public static final int BFLOAT16 = 16;
    public static final int FLOAT8E4M3FN = 17;
    public static final int FLOAT8E5M2 = 19;
    public static final int UINT4 = 21;
    public static final int INT4 = 22;

    private static final String[] NAMES = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32",
        "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
        "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1",
        "FLOAT8E8M0", "UINT2", "INT2"};

    /** The ONNX name of an element type number. */
    public static String name(int onnxType) {
        return onnxType >= 0 && onnxType < NAMES.length ? NAMES[onnxType] : "unknown type " + onnxType;
    }

    /** Whether the number is an element type ONNX defines. */
    public static boolean known(int onnxType) {
        return onnxType > 0 && onnxType < NAMES.length;
    }

    /**
     * The Partita data type of an ONNX element type, or null when Partita has none (UINT32, strings,
     * complex, FNUZ float8 variants, float4, e8m0, 2-bit). DOUBLE, INT16, UINT16 and UINT64 map to
     * Partita's extension types, which only the reference backend runs. FLOAT8E4M3FN is oneDNN's
     * f8_e4m3 (OCP E4M3: no infinities, one NaN pattern).
     */
    public static DataType toPartita(int onnxType) {
        return switch (onnxType) {
            case FLOAT -> DataType.F32;
            case UINT8 -> DataType.U8;
            case INT8 -> DataType.S8;
            case INT16 -> DataType.S16;
            case UINT16 -> DataType.U16;
            case INT32 -> DataType.S32;
            case INT64 -> DataType.S64;
            case UINT64 -> DataType.U64;
            case DOUBLE -> DataType.F64;
            case BOOL -> DataType.BOOLEAN;
            case FLOAT16 -> DataType.F16;
            case BFLOAT16 -> DataType.BF16;
            case FLOAT8E4M3FN -> DataType.F8_E4M3;
            case FLOAT8E5M2 -> DataType.F8_E5M2;
            case UINT4 -> DataType.U4;
            case INT4 -> DataType.S4;
            default -> null;
        };
    }
}
