package io.partita.gpu.internal.cl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.jocl.Pointer;

/**
 * Where OpenCL queries write their answers: direct memory, handed to the driver as it is. JOCL writes
 * an answer into a Java array through a JNI call that leaves the array unchanged when the JVM copies
 * arrays for JNI (as {@code -Xcheck:jni} does): a kernel's function name then came back empty and
 * every replay failed with {@code CL_INVALID_KERNEL_NAME}.
 */
public final class QueryOut {
    private final ByteBuffer buffer;

    private QueryOut(long bytes) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("an OpenCL answer of " + bytes + " bytes");
        }
        this.buffer = ByteBuffer.allocateDirect((int) Math.max(bytes, 1)).order(ByteOrder.nativeOrder());
    }

    /** Room for an answer of {@code bytes} bytes. */
    public static QueryOut of(long bytes) {
        return new QueryOut(bytes);
    }

    /** The pointer to pass as the query's value. */
    public Pointer pointer() {
        return Pointer.to(buffer);
    }

    public long asLong() {
        return buffer.getLong(0);
    }

    public int asInt() {
        return buffer.getInt(0);
    }

    public byte[] bytes() {
        byte[] b = new byte[buffer.capacity()];
        buffer.get(0, b);
        return b;
    }

    /** The answer as a C string: up to the first NUL, trimmed. */
    public String asString() {
        byte[] b = bytes();
        int len = 0;
        while (len < b.length && b[len] != 0) {
            len++;
        }
        return new String(b, 0, len, StandardCharsets.UTF_8).trim();
    }
}
