package io.partita.runtime;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import io.partita.graph.AttrValue;
import io.partita.graph.CacheBlobException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * Cache blob ids and seals. An id is the canonical bytes of everything that decides a compiled
 * partition's code, compared whole (never a hash alone). The blobs a compiled partition gives are
 * the backend's own followed by a seal: SHA-256 over the id and every blob with its length, so a
 * truncated, reordered, altered or foreign blob list is refused before a backend loads any of it.
 */
final class CacheBlobs {
    /** Changes whenever the id's layout does: ids of another layout never match. */
    private static final String ID_FORMAT = "partita.blob-id/1";
    private static final byte[] SEAL_MAGIC = "partita.blob-seal/1".getBytes(StandardCharsets.US_ASCII);
    private static final int SHA256 = 32;
    static final String PARTITA_VERSION = readVersion();

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
            out.writeUTF(Runtime.version().toString());
            out.writeUTF(System.getProperty("java.vm.name", "") + " " + System.getProperty("os.arch", ""));
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
        if (seal.length != SEAL_MAGIC.length + SHA256
                || !java.util.Arrays.equals(seal, 0, SEAL_MAGIC.length, SEAL_MAGIC, 0, SEAL_MAGIC.length)) {
            throw new CacheBlobException(CacheBlobException.Reason.DAMAGED, what + ": the last of " + sealed.size()
                    + " blobs is not a seal (" + seal.length + " bytes); expected the blobs a compiled partition's"
                    + " cacheBlobs() gave, unchanged and in order");
        }
        List<byte[]> blobs = new ArrayList<>(sealed.subList(0, sealed.size() - 1));
        byte[] expected = sealOf(id, blobs);
        if (!MessageDigest.isEqual(expected, seal)) {
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
        MessageDigest sha = sha256();
        ByteBuffer len = ByteBuffer.allocate(Long.BYTES);
        sha.update(len.putLong(0, id.length).array());
        sha.update(id);
        sha.update(len.putLong(0, blobs.size()).array());
        for (byte[] b : blobs) {
            sha.update(len.putLong(0, b.length).array());
            sha.update(b);
        }
        byte[] seal = new byte[SEAL_MAGIC.length + SHA256];
        System.arraycopy(SEAL_MAGIC, 0, seal, 0, SEAL_MAGIC.length);
        System.arraycopy(sha.digest(), 0, seal, SEAL_MAGIC.length, SHA256);
        return seal;
    }

    /** A short printable name for an id (its SHA-256 prefix), for log lines. */
    static String name(byte[] id) {
        return HexFormat.of().formatHex(sha256().digest(id), 0, 6);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
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
