package io.partita.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
    void anOpaqueTensorHasNoStrides() {
        LogicalTensor t = LogicalTensor.opaque(5, DataType.F32, new long[] {2, 3}, 7, PropertyType.VARIABLE);
        assertNull(t.strides());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.stride(0));
        assertTrue(e.getMessage().contains("tensor 5") && e.getMessage().contains("not strided"), e.getMessage());
    }
}
