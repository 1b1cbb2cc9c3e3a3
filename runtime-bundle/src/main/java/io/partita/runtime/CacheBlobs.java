package io.partita.runtime;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

import io.partita.graph.AttrValue;
import io.partita.graph.CacheBlobException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * Cache blob ids and seals. An id is the canonical bytes of everything that decides a compiled
 * partition's code, compared whole (never a hash alone). The blobs a compiled partition gives are
 * the backend's own followed by a seal: a 64-bit checksum (CRC-32 and Adler-32) over the id and
 * every blob with its length, so a truncated, reordered, altered or foreign blob list is refused
 * before a backend loads any of it.
 *
 * <p>The seal detects damage and mix-ups, not forgery: anyone able to write the blobs could
 * recompute any unkeyed digest, SHA-256 included, so trust comes from where the blobs come from
 * (the store refuses directories and files others can write). zlib's checksums run natively from
 * the first call, where an interpreted SHA-256 cost a fresh JVM milliseconds per compile.
 */
final class CacheBlobs {
    /** Changes whenever the id's layout does: ids of another layout never match. */
    private static final String ID_FORMAT = "partita.blob-id/2";
    private static final byte[] SEAL_MAGIC = "partita.blob-seal/2".getBytes(StandardCharsets.US_ASCII);
    private static final int CHECKSUM = 8;
    static final String PARTITA_VERSION = readVersion();
    /**
     * The JVM the code runs on (release, VM build, VM and architecture): read from properties, not
     * {@code Runtime.version()}, whose string form costs a fresh JVM a stream pipeline per call.
     */
    private static final String JVM = System.getProperty("java.version", "") + " "
            + System.getProperty("java.vm.version", "") + " " + System.getProperty("java.vm.name", "") + " "
            + System.getProperty("os.arch", "");

    private CacheBlobs() {
    }

    /**
     * The id of compiling this request with this backend: format, Partita and JVM versions, backend id,
     * version and cache identity for the engine, engine, fpmath mode, pattern, the ops in order (kind,
     * attributes sorted by name, tensors) and the ports. Op names are left out: they do not change code.
     */
    static byte[] id(BackendHandle backend, CompileRequestImpl request) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + 128 * request.ops().size());
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeUTF(ID_FORMAT);
            out.writeUTF(PARTITA_VERSION);
            out.writeUTF(JVM);
            out.writeUTF(backend.id());
            out.writeUTF(backend.backend().version());
            out.writeUTF(backend.backend().cacheIdentity(request.engine()));
            out.writeUTF(request.engine().kind().spelling());
            out.writeInt(request.engine().index());
            out.writeUTF(request.fpMathMode().name());
            out.writeUTF(request.pattern());
            out.writeInt(request.ops().size());
            for (Op op : request.ops()) {
                out.writeLong(op.id());
                out.writeUTF(op.kind().name());
                Map<String, AttrValue> attrs = new TreeMap<>(op.attrs());
                out.writeInt(attrs.size());
                for (Map.Entry<String, AttrValue> a : attrs.entrySet()) {
                    out.writeUTF(a.getKey());
                    attr(out, a.getValue());
                }
                tensors(out, op.inputs());
                tensors(out, op.outputs());
            }
            tensors(out, request.inputs());
            tensors(out, request.outputs());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
        return bytes.toByteArray();
    }

    private static void attr(DataOutputStream out, AttrValue v) throws IOException {
        out.writeUTF(v.type().name());
        switch (v.type()) {
            case BOOL -> out.writeBoolean(v.asBool());
            case S64 -> out.writeLong(v.asLong());
            case S64_ARRAY -> longs(out, v.asLongs());
            case F32 -> out.writeInt(Float.floatToRawIntBits(v.asFloat()));
            case F32_ARRAY -> {
                float[] f = v.asFloats();
                out.writeInt(f.length);
                for (float x : f) {
                    out.writeInt(Float.floatToRawIntBits(x));
                }
            }
            case STRING -> {
                byte[] s = v.asString().getBytes(StandardCharsets.UTF_8);
                out.writeInt(s.length);
                out.write(s);
            }
        }
    }

    private static void tensors(DataOutputStream out, List<LogicalTensor> ts) throws IOException {
        out.writeInt(ts.size());
        for (LogicalTensor t : ts) {
            out.writeLong(t.id());
            out.writeUTF(t.dataType().name());
            longs(out, t.dims());
            out.writeUTF(t.layoutType().name());
            longs(out, t.strides());
            out.writeLong(t.layoutId());
            out.writeUTF(t.property().name());
        }
    }

    private static void longs(DataOutputStream out, long[] v) throws IOException {
        if (v == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(v.length);
        for (long x : v) {
            out.writeLong(x);
        }
    }

    /** The backend's blobs followed by their seal; empty stays empty (nothing to persist). */
    static List<byte[]> seal(byte[] id, List<byte[]> blobs) {
        if (blobs.isEmpty()) {
            return List.of();
        }
        List<byte[]> sealed = new ArrayList<>(blobs.size() + 1);
        for (byte[] b : blobs) {
            sealed.add(b.clone());
        }
        sealed.add(sealOf(id, blobs));
        return sealed;
    }

    /**
     * The backend's blobs of a sealed list, after checking the seal against the id.
     *
     * @throws CacheBlobException {@code DAMAGED} naming what does not match
     */
    static List<byte[]> open(byte[] id, List<byte[]> sealed, String what) {
        if (sealed == null || sealed.isEmpty()) {
            throw new CacheBlobException(CacheBlobException.Reason.DAMAGED, what + ": no blobs (expected the backend's"
                    + " blobs followed by a seal)");
        }
        for (int i = 0; i < sealed.size(); i++) {
            if (sealed.get(i) == null) {
                throw new CacheBlobException(CacheBlobException.Reason.DAMAGED, what + ": blob " + i + " is null");
            }
        }
        byte[] seal = sealed.get(sealed.size() - 1);
        if (seal.length != SEAL_MAGIC.length + CHECKSUM
                || !java.util.Arrays.equals(seal, 0, SEAL_MAGIC.length, SEAL_MAGIC, 0, SEAL_MAGIC.length)) {
            throw new CacheBlobException(CacheBlobException.Reason.DAMAGED, what + ": the last of " + sealed.size()
                    + " blobs is not a seal (" + seal.length + " bytes); expected the blobs a compiled partition's"
                    + " cacheBlobs() gave, unchanged and in order");
        }
        List<byte[]> blobs = new ArrayList<>(sealed.subList(0, sealed.size() - 1));
        byte[] expected = sealOf(id, blobs);
        if (!java.util.Arrays.equals(expected, seal)) {
            throw new CacheBlobException(CacheBlobException.Reason.DAMAGED, what + ": the " + blobs.size()
                    + " blobs do not match their seal (altered, truncated, reordered, or sealed under another id)");
        }
        List<byte[]> copies = new ArrayList<>(blobs.size());
        for (byte[] b : blobs) {
            copies.add(b.clone());
        }
        return copies;
    }

    private static byte[] sealOf(byte[] id, List<byte[]> blobs) {
        CRC32 crc = new CRC32();
        Adler32 adler = new Adler32();
        byte[] len = new byte[Long.BYTES];
        checksum(crc, adler, lengthBytes(len, id.length), id);
        checksum(crc, adler, lengthBytes(len, blobs.size()), null);
        for (byte[] b : blobs) {
            checksum(crc, adler, lengthBytes(len, b.length), b);
        }
        return ByteBuffer.allocate(SEAL_MAGIC.length + CHECKSUM).put(SEAL_MAGIC).putInt((int) crc.getValue())
                .putInt((int) adler.getValue()).array();
    }

    private static byte[] lengthBytes(byte[] into, long value) {
        return ByteBuffer.wrap(into).putLong(0, value).array();
    }

    private static void checksum(CRC32 crc, Adler32 adler, byte[] length, byte[] bytes) {
        crc.update(length);
        adler.update(length);
        if (bytes != null) {
            crc.update(bytes);
            adler.update(bytes);
        }
    }

    /** A short printable name for an id (the hex of its CRC-32), for log lines. */
    static String name(byte[] id) {
        CRC32 crc = new CRC32();
        crc.update(id);
        return String.format("%08x", crc.getValue());
    }

    private static String readVersion() {
        try (InputStream in = CacheBlobs.class.getResourceAsStream("partita-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
