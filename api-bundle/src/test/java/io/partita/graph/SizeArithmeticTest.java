package io.partita.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;

/** Sizes and offsets never wrap around: an overflow is an error naming the tensor, not a small size. */
class SizeArithmeticTest {
    private static final long MAX = Long.MAX_VALUE;

    private static void assertMessage(Throwable e, String... parts) {
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "expected '" + p + "' in: " + e.getMessage());
        }
    }

    @Test
    void byteSizeRefusesOverflowAndNegativeCounts() {
        assertEquals(MAX / 8 * 8, DataType.S64.byteSize(MAX / 8));
        assertEquals(MAX / 2 + 1, DataType.S4.byteSize(MAX));
        assertEquals(3, DataType.U4.byteSize(5));
        assertMessage(assertThrows(InvalidArgumentException.class, () -> DataType.F32.byteSize(MAX / 2)),
                MAX / 2 + " f32 elements take more than 2^63-1 bytes");
        assertMessage(assertThrows(InvalidArgumentException.class, () -> DataType.F32.byteSize(-1)), "-1 f32");
    }

    @Test
    void dimsWhoseBytesOverflowAreRefusedNamingTheTensor() {
        InvalidGraphException e = assertThrows(InvalidGraphException.class,
                () -> LogicalTensor.of(3, DataType.F32, MAX));
        assertMessage(e, "tensor 3 f32[9223372036854775807] has more than 2^63-1 bytes");
        // the element count itself overflows
        e = assertThrows(InvalidGraphException.class, () -> LogicalTensor.of(4, DataType.F32, 1L << 62, 4));
        assertMessage(e, "tensor 4 f32[4611686018427387904,4] has more than 2^63-1 elements");
    }

    @Test
    void denseStridesThatOverflowAreRefused() {
        // no elements, but the stride of dim 0 would be 2^64
        InvalidGraphException e = assertThrows(InvalidGraphException.class,
                () -> LogicalTensor.of(5, DataType.F32, 0, 1L << 62, 4));
        assertMessage(e, "tensor 5 f32[0,4611686018427387904,4]", "dense stride of dim 0");
    }

    @Test
    void largeButLegalSizesComputeAsLongs() {
        LogicalTensor t = LogicalTensor.of(1, DataType.F32, 1L << 31, 2);
        assertEquals(1L << 32, t.elementCount());
        assertEquals(1L << 34, t.memSize());
        assertEquals(1L << 33, LogicalTensor.of(2, DataType.S4, 1L << 31, 8).memSize());
    }

    @Test
    void negativeStridesAreRefusedNamingTheStride() {
        InvalidGraphException e = assertThrows(InvalidGraphException.class,
                () -> LogicalTensor.of(6, DataType.F32, 2, 3).withStrides(3, -1));
        assertMessage(e, "logical tensor 6: stride 1 is -1", "[3,-1]");
        assertFalse(e.getMessage().contains("unknown"), e.getMessage());
    }

    @Test
    void stridesAddressingMoreThan2To63BytesAreRefused() {
        // f32[2,3] with row stride 2^62 elements: (2^62 + 3) * 4 bytes
        InvalidGraphException e = assertThrows(InvalidGraphException.class,
                () -> LogicalTensor.of(7, DataType.F32, 2, 3).withStrides(1L << 62, 1));
        assertMessage(e, "tensor 7 f32[2,3] strides [4611686018427387904,1] has more than 2^63-1 bytes");
        e = assertThrows(InvalidGraphException.class,
                () -> LogicalTensor.of(8, DataType.U8, 3, 3).withStrides(MAX / 2 + 1, 1));
        assertMessage(e, "tensor 8 u8[3,3]");
    }

    @Test
    void tensorOfRefusesABufferSmallerThanTheStridedExtent() {
        LogicalTensor t = LogicalTensor.of(9, DataType.F32, 2, 3).withStrides(4, 1); // extent 7 elements
        assertEquals(28, t.memSize());
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Tensor.of(t, Engine.cpu(), MemorySegment.ofArray(new byte[24])));
        assertMessage(e, "tensor 9 [2,3] f32 strides [4,1] needs 28 bytes but its buffer has 24");
        // ElementCodec checks the same extent for segments handed to it directly
        e = assertThrows(InvalidArgumentException.class,
                () -> ElementCodec.write(t, MemorySegment.ofArray(new byte[24]), new double[6]));
        assertMessage(e, "addresses 28 bytes but its buffer has 24");
    }

    @Test
    void aliasingStridesAreDetectedAndRefusedForWrites() {
        LogicalTensor broadcast = LogicalTensor.of(10, DataType.F32, 2, 3).withStrides(0, 1);
        LogicalTensor overlap = LogicalTensor.of(11, DataType.F32, 2, 3).withStrides(2, 1);
        LogicalTensor transposed = LogicalTensor.of(12, DataType.F32, 2, 3).withStrides(1, 2);
        LogicalTensor padded = LogicalTensor.of(13, DataType.F32, 2, 3).withStrides(4, 1);
        assertTrue(broadcast.stridesMayAlias());
        assertTrue(overlap.stridesMayAlias());
        assertFalse(transposed.stridesMayAlias());
        assertFalse(padded.stridesMayAlias());
        assertFalse(LogicalTensor.of(14, DataType.F32, 1, 3).withStrides(0, 1).stridesMayAlias());
        try (Arena arena = Arena.ofConfined()) {
            Tensor t = Tensor.allocate(overlap, Engine.cpu(), arena);
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> t.copyFrom(new double[] {1, 2, 3, 4, 5, 6}));
            assertMessage(e, "tensor 11", "share memory");
            // reading a broadcast stays allowed
            Tensor b = Tensor.allocate(broadcast, Engine.cpu(), arena);
            assertEquals(6, b.toDoubleArray().length);
        }
    }
}
