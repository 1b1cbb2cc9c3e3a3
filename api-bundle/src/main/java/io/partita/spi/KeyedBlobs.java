package io.partita.spi;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cache blobs that each carry a key and a payload ({@code int keyLength, key, payload}): the form a
 * backend whose compiled partition is several independently cached artefacts (generated classes,
 * program binaries) gives, so that a compile from blobs finds each artefact by its key.
 */
public final class KeyedBlobs {
    private KeyedBlobs() {
    }

    /** One blob of this key and payload. */
    public static byte[] encode(byte[] key, byte[] payload) {
        return ByteBuffer.allocate(4 + key.length + payload.length).putInt(key.length).put(key).put(payload).array();
    }

    /**
     * The payloads by key (in hex), in blob order.
     *
     * @param keyLength the length every key must have, or -1 for any
     * @param what      names the payload in messages, e.g. "generated class"
     * @throws IllegalArgumentException naming the first blob that is not a keyed blob
     */
    public static Map<String, byte[]> decode(List<byte[]> blobs, int keyLength, String what) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (int i = 0; i < blobs.size(); i++) {
            byte[] b = blobs.get(i);
            int k = b.length < 4 ? -1 : ByteBuffer.wrap(b).getInt();
            if (k < 0 || k > b.length - 4 || keyLength >= 0 && k != keyLength || b.length == 4 + k) {
                throw new IllegalArgumentException("blob " + i + " of " + blobs.size() + " (" + b.length
                        + " bytes) is not a " + what + " (key length " + k
                        + (keyLength >= 0 ? ", expected " + keyLength : "") + ")");
            }
            out.put(HexFormat.of().formatHex(b, 4, 4 + k), Arrays.copyOfRange(b, 4 + k, b.length));
        }
        return out;
    }
}
