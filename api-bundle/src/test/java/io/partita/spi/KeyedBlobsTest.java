package io.partita.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class KeyedBlobsTest {
    @Test
    void blobsRoundTripInOrderByHexKey() {
        List<byte[]> blobs = List.of(KeyedBlobs.encode(new byte[] {1, 2}, new byte[] {9, 8, 7}),
                KeyedBlobs.encode(new byte[] {(byte) 0xab}, new byte[] {5}));
        Map<String, byte[]> m = KeyedBlobs.decode(blobs, -1, "thing");
        assertEquals(List.of("0102", "ab"), List.copyOf(m.keySet()));
        assertArrayEquals(new byte[] {9, 8, 7}, m.get("0102"));
        assertArrayEquals(new byte[] {5}, m.get("ab"));
    }

    @Test
    void aBlobThatIsNotKeyedIsNamedByIndex() {
        byte[] good = KeyedBlobs.encode(new byte[] {1, 2}, new byte[] {3});
        for (byte[] bad : List.of(new byte[3], new byte[] {0, 0, 0, 9, 1}, new byte[] {(byte) 0x80, 0, 0, 0, 1},
                new byte[] {0, 0, 0, 1, 7})) { // the last: a key and no payload
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> KeyedBlobs.decode(List.of(good, bad), -1, "program binary"));
            assertTrue(x.getMessage().startsWith("blob 1 of 2 (" + bad.length + " bytes) is not a program binary"),
                    x.getMessage());
        }
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> KeyedBlobs.decode(List.of(good), 32, "program binary"));
        assertTrue(x.getMessage().endsWith("(key length 2, expected 32)"), x.getMessage());
    }
}
