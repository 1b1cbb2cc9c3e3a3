package io.partita.formats.onnx.internal.proto;

/**
 * A decoded ONNX TensorProto. Exactly one of the data fields normally holds the values; which one
 * depends on the data type (see {@link TensorDecoder}).
 *
 * @param dataType the ONNX element type number (TensorProto.DataType)
 * @param rawData little-endian packed values, or null
 * @param floatData float_data (FLOAT, COMPLEX64)
 * @param int32Data int32_data (INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16/BFLOAT16 bits, 8/4/2-bit types)
 * @param int64Data int64_data (INT64)
 * @param doubleData double_data as raw bits (DOUBLE)
 * @param uint64Data uint64_data (UINT32, UINT64)
 * @param external whether data_location says EXTERNAL (values in another file)
 */
public record TensorProto(String name, int dataType, long[] dims, byte[] rawData, float[] floatData, long[] int32Data,
        long[] int64Data, long[] doubleData, long[] uint64Data, int stringCount, boolean external) {
}
