package io.partita.cache.internal;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import io.partita.cache.PersistentCacheStats.Reject;

/**
 * The bytes of a persistent cache entry. {@code key.bin}: magic {@code PKEY}, format version, key
 * length, key. {@code kernel.bin}: magic {@code PKRN}, format version, blob count, payload length,
 * then each blob as length and bytes, then a SHA-256 over key.bin and everything before it in
 * kernel.bin, so that the two files are checked as one (an entry cannot pair one key with another's
 * kernel). Big-endian throughout.
 */
final class EntryFormat {
    static final int VERSION = 1;
    private static final int KEY_MAGIC = 0x504b4559; // "PKEY"
    private static final int KERNEL_MAGIC = 0x504b524e; // "PKRN"
    private static final int KEY_HEADER = 12;
    private static final int KERNEL_HEADER = 20;
    private static final int DIGEST = 32;

    private EntryFormat() {
    }

    /** A refusal: why, and a detail for the log. */
    record Problem(Reject reason, String detail) {
    }

    /** The bucket of a key: the first 64 bits of its SHA-256, in hex. */
    static String bucket(byte[] key) {
        return HexFormat.of().formatHex(sha256().digest(key), 0, 8);
    }

    static boolean isBucketName(String name) {
        return name.length() == 16 && name.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }

    static byte[] encodeKey(byte[] key) {
        return ByteBuffer.allocate(KEY_HEADER + key.length).putInt(KEY_MAGIC).putInt(VERSION).putInt(key.length)
                .put(key).array();
    }

    /** The kernel file for these blobs, or null when it would not fit in an array. */
    static byte[] encodeKernel(byte[] keyFile, List<byte[]> blobs) {
        long payload = 0;
        for (byte[] b : blobs) {
            payload += 4L + b.length;
        }
        long total = KERNEL_HEADER + payload + DIGEST;
        if (total > Integer.MAX_VALUE - 16) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.allocate((int) total).putInt(KERNEL_MAGIC).putInt(VERSION).putInt(blobs.size())
                .putLong(payload);
        for (byte[] b : blobs) {
            buf.putInt(b.length).put(b);
        }
        MessageDigest md = sha256();
        md.update(keyFile);
        md.update(buf.array(), 0, buf.position());
        buf.put(md.digest());
        return buf.array();
    }

    /** The key in a key file, or the problem with it (a {@link Problem}). */
    static Object decodeKey(byte[] file) {
        Problem p = header(file, KEY_MAGIC, KEY_HEADER, "key.bin");
        if (p != null) {
            return p;
        }
        int length = ByteBuffer.wrap(file, 8, 4).getInt();
        if (length < 0) {
            return new Problem(Reject.CHECKSUM, "key.bin declares a negative key length " + length);
        }
        long expected = (long) KEY_HEADER + length;
        if (file.length < expected) {
            return new Problem(Reject.TRUNCATED, "key.bin has " + file.length + " bytes, its header says " + expected);
        }
        if (file.length > expected) {
            return new Problem(Reject.CHECKSUM, "key.bin has " + file.length + " bytes, its header says " + expected);
        }
        return Arrays.copyOfRange(file, KEY_HEADER, file.length);
    }

    /** The blobs of a kernel file checked against its key file, or the problem (a {@link Problem}). */
    static Object decodeKernel(byte[] keyFile, byte[] file) {
        Problem p = header(file, KERNEL_MAGIC, KERNEL_HEADER, "kernel.bin");
        if (p != null) {
            return p;
        }
        ByteBuffer buf = ByteBuffer.wrap(file);
        int count = buf.getInt(8);
        long payload = buf.getLong(12);
        if (count < 0 || payload < 4L * count || payload > Integer.MAX_VALUE) {
            return new Problem(Reject.CHECKSUM, "kernel.bin header is inconsistent (" + count + " blobs, " + payload
                    + " payload bytes)");
        }
        long expected = KERNEL_HEADER + payload + DIGEST;
        if (file.length < expected) {
            return new Problem(Reject.TRUNCATED, "kernel.bin has " + file.length + " bytes, its header says " + expected);
        }
        if (file.length > expected) {
            return new Problem(Reject.CHECKSUM, "kernel.bin has " + file.length + " bytes, its header says " + expected);
        }
        MessageDigest md = sha256();
        md.update(keyFile);
        md.update(file, 0, file.length - DIGEST);
        if (!MessageDigest.isEqual(md.digest(), Arrays.copyOfRange(file, file.length - DIGEST, file.length))) {
            return new Problem(Reject.CHECKSUM, "the checksum over key.bin and kernel.bin does not match");
        }
        List<byte[]> blobs = new ArrayList<>(count);
        buf.position(KERNEL_HEADER);
        int end = file.length - DIGEST;
        for (int i = 0; i < count; i++) {
            int n = buf.remaining() >= 4 && buf.position() + 4 <= end ? buf.getInt() : -1;
            if (n < 0 || n > end - buf.position()) {
                return new Problem(Reject.CHECKSUM, "blob " + i + " of kernel.bin overruns its payload");
            }
            byte[] b = new byte[n];
            buf.get(b);
            blobs.add(b);
        }
        if (buf.position() != end) {
            return new Problem(Reject.CHECKSUM, "kernel.bin has bytes after its last blob");
        }
        return blobs;
    }

    private static Problem header(byte[] file, int magic, int headerSize, String name) {
        if (file.length < 4) {
            return new Problem(Reject.TRUNCATED, name + " has only " + file.length + " bytes");
        }
        ByteBuffer buf = ByteBuffer.wrap(file);
        if (buf.getInt(0) != magic) {
            return new Problem(Reject.VERSION, name + " is not in a Partita persistent cache format");
        }
        if (file.length < 8) {
            return new Problem(Reject.TRUNCATED, name + " has only " + file.length + " bytes");
        }
        int version = buf.getInt(4);
        if (version != VERSION) {
            return new Problem(Reject.VERSION, name + " has format version " + version + ", expected " + VERSION);
        }
        if (file.length < headerSize) {
            return new Problem(Reject.TRUNCATED, name + " has only " + file.length + " bytes, less than its header");
        }
        return null;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
