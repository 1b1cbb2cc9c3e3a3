package io.partita.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Strides, whole and one at a time; the arrays handed out are copies. */
class LogicalTensorTest {

    @Test
    void strideByIndexMatchesTheStridesAndTheArrayIsACopy() {
        LogicalTensor dense = LogicalTensor.of(1, DataType.F32, 2, 3, 4);
        assertArrayEquals(new long[] {12, 4, 1}, dense.strides());
        LogicalTensor t = LogicalTensor.of(2, DataType.F32, new long[] {2, 3}, LayoutType.STRIDED, new long[] {1, 2},
                PropertyType.VARIABLE);
        long[] strides = t.strides();
        for (int i = 0; i < strides.length; i++) {
            assertEquals(strides[i], t.stride(i));
        }
        strides[0] = 99;
        assertEquals(1, t.stride(0));
        assertEquals(1, t.strides()[0]);
    }

    @Test
    void equalTensorsHashAlikeAndEveryFieldTakesPart() {
        LogicalTensor a = LogicalTensor.of(2, DataType.F32, new long[] {2, 3}, LayoutType.STRIDED, new long[] {1, 2},
                PropertyType.VARIABLE);
        LogicalTensor same = LogicalTensor.of(2, DataType.F32, new long[] {2, 3}, LayoutType.STRIDED,
                new long[] {1, 2}, PropertyType.VARIABLE);
        assertEquals(a, same);
        assertEquals(a.hashCode(), same.hashCode());
        java.util.List<LogicalTensor> others = java.util.List.of(a.withId(3), a.withDataType(DataType.BF16),
                a.withDims(3, 2), a.withStrides(3, 1), a.withProperty(PropertyType.CONSTANT),
                LogicalTensor.opaque(2, DataType.F32, new long[] {2, 3}, 7, PropertyType.VARIABLE));
        for (LogicalTensor o : others) {
            assertNotEquals(a, o);
            assertNotEquals(a.hashCode(), o.hashCode(), o.toString()); // these small changes all move the hash
        }
    }

    @Test
    void anOpaqueTensorHasNoStrides() {
        LogicalTensor t = LogicalTensor.opaque(5, DataType.F32, new long[] {2, 3}, 7, PropertyType.VARIABLE);
        assertNull(t.strides());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.stride(0));
        assertTrue(e.getMessage().contains("tensor 5") && e.getMessage().contains("not strided"), e.getMessage());
    }
}
