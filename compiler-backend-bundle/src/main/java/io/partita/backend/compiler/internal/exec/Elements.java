package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.partita.graph.DataType;
import io.partita.graph.ElementCodec;

/**
 * Element reads and writes by data type for the staging loops of fused code, which computes in
 * f32 whatever its inputs and outputs hold (bf16 and f16 widened on load, rounded on store, as
 * oneDNN's fused kernels do). {@code i} is an element index.
 */
final class Elements {
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT;

    private Elements() {
    }

    static boolean supported(DataType dt) {
        return dt == DataType.F32 || dt == DataType.BF16 || dt == DataType.F16 || dt == DataType.BOOLEAN
                || dt == DataType.S32 || dt == DataType.S8 || dt == DataType.U8;
    }

    static float get(DataType dt, MemorySegment s, long i) {
        return switch (dt) {
            case F32 -> s.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            case BF16 -> Float.intBitsToFloat(s.getAtIndex(SHORT, i) << 16);
            case F16 -> Float.float16ToFloat(s.getAtIndex(SHORT, i));
            case BOOLEAN -> s.get(ValueLayout.JAVA_BYTE, i) != 0 ? 1f : 0f;
            default -> (float) ElementCodec.get(dt, s, i);
        };
    }

    static void set(DataType dt, MemorySegment s, long i, float v) {
        switch (dt) {
            case F32 -> s.setAtIndex(ValueLayout.JAVA_FLOAT, i, v);
            case BF16 -> s.setAtIndex(SHORT, i, ElementCodec.toBf16Bits(v));
            case F16 -> s.setAtIndex(SHORT, i, Float.floatToFloat16(v));
            default -> ElementCodec.set(dt, s, i, v);
        }
    }
}
