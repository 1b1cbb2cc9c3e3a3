package io.partita.graph;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;


/**
 * Reads and writes tensor elements of every data type, in any strided layout, as doubles in
 * logical row-major order. Writes round to the target type the way oneDNN does: round half to
 * even, integers saturate (NaN becomes 0).
 *
 * <p>Values travel as doubles, so s64 and u64 elements are exact only up to 2^53 in magnitude; a
 * larger one reads as the nearest double (u64 above 2^63 included: it reads as its unsigned value,
 * never as a negative number). Writes saturate at the type's true bounds: anything at or above 2^64
 * writes u64's all-ones maximum, anything at or above 2^63 writes s64's maximum.
 */
public final class ElementCodec {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final double TWO_63 = 0x1p63;
    private static final double TWO_64 = 0x1p64;

    private ElementCodec() {
    }

    /** All elements of a concrete strided tensor, converted to double. */
    public static double[] read(LogicalTensor lt, MemorySegment seg) {
        long n = checkedCount(lt, seg);
        double[] out = new double[(int) n];
        DataType dt = lt.dataType();
        if (lt.isDense()) {
            if (dt == DataType.F32) {
                for (int i = 0; i < out.length; i++) {
                    out[i] = seg.getAtIndex(F32, i);
                }
            } else {
                for (int i = 0; i < out.length; i++) {
                    out[i] = get(dt, seg, i);
                }
            }
            return out;
        }
        forEachOffset(lt, (i, off) -> out[i] = get(dt, seg, off));
        return out;
    }

    /** Writes all elements (logical row-major order), rounding to the tensor's data type. */
    public static void write(LogicalTensor lt, MemorySegment seg, double[] values) {
        long n = checkedCount(lt, seg);
        if (lt.stridesMayAlias()) {
            // Each element would land on memory another element also takes; the last write would win.
            throw new InvalidArgumentException(lt + ": its strides let distinct elements share memory; cannot write"
                    + " elements to it");
        }
        if (values.length != n) {
            throw new InvalidArgumentException("tensor " + lt.id() + " has " + n + " elements, got " + values.length
                    + " values");
        }
        DataType dt = lt.dataType();
        if (lt.isDense()) {
            if (dt == DataType.F32) {
                for (int i = 0; i < values.length; i++) {
                    seg.setAtIndex(F32, i, (float) values[i]);
                }
            } else {
                for (int i = 0; i < values.length; i++) {
                    set(dt, seg, i, values[i]);
                }
            }
            return;
        }
        forEachOffset(lt, (i, off) -> set(dt, seg, off, values[i]));
    }

    /** Receives each element's logical index and its offset (in elements) in memory. */
    @FunctionalInterface
    interface OffsetVisitor {
        void visit(int index, long offset);
    }

    /** Walks a strided tensor in logical row-major order without materializing offsets. */
    static void forEachOffset(LogicalTensor lt, OffsetVisitor v) {
        long[] dims = lt.dims();
        long[] strides = lt.strides();
        int n = (int) lt.elementCount();
        int rank = dims.length;
        if (n == 0) {
            return;
        }
        if (rank == 0) {
            v.visit(0, 0);
            return;
        }
        long inner = dims[rank - 1];
        long innerStride = strides[rank - 1];
        long[] idx = new long[rank];
        long base = 0;
        int i = 0;
        while (i < n) {
            long off = base;
            for (long k = 0; k < inner; k++, off += innerStride) {
                v.visit(i++, off);
            }
            for (int d = rank - 2; d >= 0; d--) {
                idx[d]++;
                base += strides[d];
                if (idx[d] < dims[d]) {
                    break;
                }
                base -= strides[d] * idx[d];
                idx[d] = 0;
            }
        }
    }

    private static long checkedCount(LogicalTensor lt, MemorySegment seg) {
        if (!lt.isConcrete()) {
            throw new InvalidArgumentException("tensor " + lt.id() + " needs concrete dims, has "
                    + LogicalTensor.dimsToString(lt.dims()));
        }
        if (lt.layoutType() != LayoutType.STRIDED) {
            throw new InvalidArgumentException("tensor " + lt.id() + " has layout " + lt.layoutType()
                    + "; element access needs a strided layout");
        }
        long n = lt.elementCount();
        if (n > Integer.MAX_VALUE - 8) {
            throw new InvalidArgumentException("tensor " + lt.id() + " has " + n
                    + " elements; element-wise access supports at most " + (Integer.MAX_VALUE - 8));
        }
        // The extent, not the element count: strides may spread the elements over more memory.
        long need = lt.memSize();
        if (seg.byteSize() < need) {
            throw new InvalidArgumentException(lt + " addresses " + need + " bytes but its buffer has "
                    + seg.byteSize());
        }
        return n;
    }

    /** One element at an element offset, as double. */
    public static double get(DataType dt, MemorySegment seg, long i) {
        return switch (dt) {
            case F32 -> seg.get(F32, i * 4);
            case BF16 -> Float.intBitsToFloat((seg.get(I16, i * 2) & 0xffff) << 16);
            case F16 -> Float.float16ToFloat(seg.get(I16, i * 2));
            case S32 -> seg.get(I32, i * 4);
            case S64 -> seg.get(I64, i * 8);
            case S8 -> seg.get(ValueLayout.JAVA_BYTE, i);
            case U8 -> seg.get(ValueLayout.JAVA_BYTE, i) & 0xff;
            case BOOLEAN -> seg.get(ValueLayout.JAVA_BYTE, i) != 0 ? 1.0 : 0.0;
            case F8_E5M2 -> MiniFloat.E5M2.decode(seg.get(ValueLayout.JAVA_BYTE, i) & 0xff);
            case F8_E4M3 -> MiniFloat.E4M3.decode(seg.get(ValueLayout.JAVA_BYTE, i) & 0xff);
            case S4 -> {
                int nib = nibble(seg, i);
                yield nib >= 8 ? nib - 16 : nib;
            }
            case U4 -> nibble(seg, i);
            case F64 -> seg.get(F64, i * 8);
            case S16 -> seg.get(I16, i * 2);
            case U16 -> seg.get(I16, i * 2) & 0xffff;
            case U64 -> unsignedToDouble(seg.get(I64, i * 8));
            case UNDEF -> throw new InvalidArgumentException("cannot read elements of undefined data type");
        };
    }

    private static int nibble(MemorySegment seg, long i) {
        int b = seg.get(ValueLayout.JAVA_BYTE, i >>> 1) & 0xff;
        return (i & 1) == 0 ? b & 0xf : b >>> 4;
    }

    /** Writes one element (not for 4-bit types, see {@link #write}). */
    public static void set(DataType dt, MemorySegment seg, long i, double v) {
        switch (dt) {
            case F32 -> seg.set(F32, i * 4, (float) v);
            case BF16 -> seg.set(I16, i * 2, toBf16Bits((float) v));
            case F16 -> seg.set(I16, i * 2, Float.floatToFloat16((float) v));
            case S32 -> seg.set(I32, i * 4, (int) saturate(v, Integer.MIN_VALUE, Integer.MAX_VALUE));
            case S64 -> seg.set(I64, i * 8, (long) saturate(v, Long.MIN_VALUE, Long.MAX_VALUE));
            case S8 -> seg.set(ValueLayout.JAVA_BYTE, i, (byte) saturate(v, -128, 127));
            case U8 -> seg.set(ValueLayout.JAVA_BYTE, i, (byte) saturate(v, 0, 255));
            case BOOLEAN -> seg.set(ValueLayout.JAVA_BYTE, i, (byte) (v != 0 ? 1 : 0));
            case F8_E5M2 -> seg.set(ValueLayout.JAVA_BYTE, i, (byte) MiniFloat.E5M2.encode(v));
            case F8_E4M3 -> seg.set(ValueLayout.JAVA_BYTE, i, (byte) MiniFloat.E4M3.encode(v));
            case S4, U4 -> set4(dt, seg, i, v);
            case F64 -> seg.set(F64, i * 8, v);
            case S16 -> seg.set(I16, i * 2, (short) saturate(v, Short.MIN_VALUE, Short.MAX_VALUE));
            case U16 -> seg.set(I16, i * 2, (short) saturate(v, 0, 65535));
            case U64 -> seg.set(I64, i * 8, toUnsignedLong(v));
            case UNDEF -> throw new InvalidArgumentException("cannot write elements of undefined data type");
        }
    }

    private static void set4(DataType dt, MemorySegment seg, long i, double v) {
        int q = (int) (dt == DataType.S4 ? saturate(v, -8, 7) : saturate(v, 0, 15)) & 0xf;
        long byteIndex = i >>> 1;
        int b = seg.get(ValueLayout.JAVA_BYTE, byteIndex) & 0xff;
        b = (i & 1) == 0 ? (b & 0xf0) | q : (b & 0x0f) | (q << 4);
        seg.set(ValueLayout.JAVA_BYTE, byteIndex, (byte) b);
    }

    /** Rounds half to even and clamps to [lo, hi]; NaN becomes 0. */
    public static double saturate(double v, double lo, double hi) {
        if (Double.isNaN(v)) {
            return 0;
        }
        double r = Math.rint(v);
        return r < lo ? lo : Math.min(r, hi);
    }

    /** Rounds a value to what the data type can hold (the value a write then read returns). */
    public static double round(DataType dt, double v) {
        return switch (dt) {
            case F32 -> (float) v;
            case BF16 -> Float.intBitsToFloat((toBf16Bits((float) v) & 0xffff) << 16);
            case F16 -> Float.float16ToFloat(Float.floatToFloat16((float) v));
            case S32 -> saturate(v, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case S64 -> saturate(v, Long.MIN_VALUE, Long.MAX_VALUE);
            case S8 -> saturate(v, -128, 127);
            case U8 -> saturate(v, 0, 255);
            case S4 -> saturate(v, -8, 7);
            case U4 -> saturate(v, 0, 15);
            case BOOLEAN -> v != 0 ? 1 : 0;
            case F8_E5M2 -> MiniFloat.E5M2.decode(MiniFloat.E5M2.encode(v));
            case F8_E4M3 -> MiniFloat.E4M3.decode(MiniFloat.E4M3.encode(v));
            case F64 -> v;
            case S16 -> saturate(v, Short.MIN_VALUE, Short.MAX_VALUE);
            case U16 -> saturate(v, 0, 65535);
            // 2^64 - 1 has no double: the all-ones maximum reads back as 2^64.
            case U64 -> saturate(v, 0, TWO_64);
            case UNDEF -> v;
        };
    }

    /** The unsigned value of a u64's bits, rounded to the nearest double. */
    public static double unsignedToDouble(long bits) {
        if (bits >= 0) {
            return bits;
        }
        // Halve (keeping the dropped bit as a sticky bit so rounding stays correct), convert, double.
        return ((bits >>> 1) | (bits & 1)) * 2.0;
    }

    /** The u64 bits of a value rounded half to even and saturated to [0, 2^64 - 1]; NaN becomes 0. */
    public static long toUnsignedLong(double v) {
        double r = saturate(v, 0, TWO_64);
        if (r >= TWO_64) {
            return -1L;
        }
        // Doubles in [2^63, 2^64) are whole numbers: shift them into the signed range and back.
        return r >= TWO_63 ? (long) (r - TWO_63) ^ Long.MIN_VALUE : (long) r;
    }

    /** bf16 bits of a float, rounding to nearest even; NaN stays a (quiet) NaN. */
    public static short toBf16Bits(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        int rounding = 0x7fff + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }
}
