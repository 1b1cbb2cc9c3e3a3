package io.partita.gpu.internal.cl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.jocl.Pointer;
import org.junit.jupiter.api.Test;

/** Answers read back from direct memory: a C string up to its NUL, numbers in native order, sizes checked. */
class QueryOutTest {

    @Test
    void readsWhatTheDriverWrote() {
        QueryOut s = QueryOut.of(8);
        Pointer p = s.pointer();
        ByteBuffer b = p.getByteBuffer(0, 8).order(ByteOrder.nativeOrder());
        b.put(0, new byte[] {'k', '_', '1', 0, 'x', 'x', 0, 0});
        assertEquals("k_1", s.asString());
        b.putLong(0, 1L << 40 | 7);
        assertEquals(1L << 40 | 7, s.asLong());
        assertEquals(7, s.asInt());
        assertEquals(8, s.bytes().length);
    }

    @Test
    void refusesSizesNoBufferHolds() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QueryOut.of(-1));
        assertTrue(e.getMessage().contains("-1 bytes"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> QueryOut.of(1L << 32));
        assertEquals(1, QueryOut.of(0).bytes().length, "an empty answer still gets room for its NUL");
    }
}
