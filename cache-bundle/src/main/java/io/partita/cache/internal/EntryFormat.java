package io.partita.cache.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

import io.partita.cache.PersistentCacheStats.Reject;

/**
 * The bytes of a persistent cache entry. {@code key.bin}: magic {@code PKEY}, format version, key
 * length, key. {@code kernel.bin}: magic {@code PKRN}, format version, blob count, payload length,
 * then each blob as length and bytes, then a 64-bit checksum (CRC-32 and Adler-32) over key.bin and
 * everything before it in kernel.bin, so that the two files are checked as one (an entry cannot pair
 * one key with another's kernel). Big-endian throughout.
 *
 * <p>The checksum catches damage (truncation, flipped bytes, a torn copy), not forgery: an unkeyed
 * digest of any strength can be recomputed by whoever can write the files, which is why the store
 * refuses directories and files others can write. zlib's checksums run natively in a fresh JVM,
 * where an interpreted SHA-256 cost milliseconds on every first load.
 */
final class EntryFormat {
    static final int VERSION = 2;
    private static final int KEY_MAGIC = 0x504b4559; // "PKEY"
    private static final int KERNEL_MAGIC = 0x504b524e; // "PKRN"
    private static final int KEY_HEADER = 12;
    private static final int KERNEL_HEADER = 20;
    private static final int DIGEST = 8;

    private EntryFormat() {
    }

    /** A refusal: why, and a detail for the log. */
    record Problem(Reject reason, String detail) {
    }

    /** The bucket of a key: its 64-bit checksum in hex (the full key is compared on load). */
    static String bucket(byte[] key) {
        return HexFormat.of().formatHex(checksum(key, null, 0));
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
        buf.put(checksum(keyFile, buf.array(), buf.position()));
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
        if (!Arrays.equals(checksum(keyFile, file, file.length - DIGEST), 0, DIGEST, file, file.length - DIGEST,
                file.length)) {
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

    /** CRC-32 then Adler-32 over {@code first} and the first {@code length} bytes of {@code rest}. */
    private static byte[] checksum(byte[] first, byte[] rest, int length) {
        CRC32 crc = new CRC32();
        Adler32 adler = new Adler32();
        crc.update(first);
        adler.update(first);
        if (rest != null) {
            crc.update(rest, 0, length);
            adler.update(rest, 0, length);
        }
        return ByteBuffer.allocate(DIGEST).putInt((int) crc.getValue()).putInt((int) adler.getValue()).array();
    }
}
