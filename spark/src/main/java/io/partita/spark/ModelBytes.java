package io.partita.spark;

import java.io.Serializable;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * A model file's bytes as the driver read them: what is broadcast once to every executor, with the
 * digest executors key their compiled graph by (two paths holding the same file share it; a file
 * replaced under the same path does not).
 *
 * @param source the location it was read from (named in messages)
 * @param format how the bytes are read
 * @param bytes the file
 * @param digest SHA-256 of the bytes, hex
 */
public record ModelBytes(String source, Format format, byte[] bytes, String digest) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The two model formats Partita reads. */
    public enum Format {
        ONNX,
        GRAPH_JSON
    }

    /** Wraps a file read from {@code source}: the format from its name, else from its first byte. */
    public static ModelBytes of(String source, byte[] bytes) {
        return new ModelBytes(source, formatOf(source, bytes), bytes, sha256(bytes));
    }

    static Format formatOf(String source, byte[] bytes) {
        String name = source.toLowerCase(Locale.ROOT);
        if (name.endsWith(".onnx")) {
            return Format.ONNX;
        }
        if (name.endsWith(".json")) {
            return Format.GRAPH_JSON;
        }
        // an ONNX ModelProto starts with a protobuf tag, never with JSON's '{' (after blanks)
        for (byte b : bytes) {
            if (!Character.isWhitespace(b)) {
                return b == '{' ? Format.GRAPH_JSON : Format.ONNX;
            }
        }
        return Format.ONNX;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "ModelBytes[" + source + ", " + format + ", " + bytes.length + " bytes, sha256 " + digest.substring(0, 16) + "]";
    }
}
