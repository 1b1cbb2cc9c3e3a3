package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.cache.internal.CacheManagerImpl;
import io.partita.graph.CacheBlobException;
import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.ForwardingBackend;
import io.partita.testing.Graphs;
import io.partita.testing.TestBackend;

/** Cache blob ids cover what decides the code; seals catch every kind of damage; backends without blobs say so. */
class CacheBlobIdTest {

    private static Partition first(RuntimeCore rt, long m) {
        return Graphs.twoLayers(rt, m, 3, 4).finalizeGraph().partitions(PartitionPolicy.FUSION).get(0);
    }

    private static RuntimeCore runtime(io.partita.spi.Backend b) {
        RuntimeCore rt = new RuntimeCore(new CacheManagerImpl(Map.of()));
        rt.addBackend(b, 10);
        return rt;
    }

    /** The fused test backend with another version or device identity. */
    private static io.partita.spi.Backend variant(String version, String identity) {
        return new ForwardingBackend(TestBackend.matmulRelu("fuse", 10)) {
            @Override
            public String version() {
                return version;
            }

            @Override
            public String cacheIdentity(Engine engine) {
                return identity;
            }
        };
    }

    private static byte[] id(RuntimeCore rt, long m) {
        Partition p = first(rt, m);
        return p.cacheBlobId(p.inputs(), p.outputs(), Engine.cpu());
    }

    @Test
    void equalPartitionsHaveEqualIdsAndEverythingThatDecidesCodeChangesIt() {
        RuntimeCore rt = runtime(variant("1", "dev A"));
        byte[] base = id(rt, 2);
        assertArrayEquals(base, id(rt, 2), "built the same way twice");
        assertArrayEquals(base, id(runtime(variant("1", "dev A")), 2), "another runtime, same backend");
        assertFalse(Arrays.equals(base, id(rt, 5)), "other shapes");
        assertFalse(Arrays.equals(base, id(runtime(variant("2", "dev A")), 2)), "another backend version");
        assertFalse(Arrays.equals(base, id(runtime(variant("1", "dev B")), 2)), "another device or driver");
        String text = new String(base, StandardCharsets.ISO_8859_1);
        assertTrue(text.contains(Runtime.version().toString()), "the JVM version");
        assertTrue(text.contains(CacheBlobs.PARTITA_VERSION), "the Partita version");
        assertNotEquals("unknown", CacheBlobs.PARTITA_VERSION, "the build filters the version in");
        CompiledPartition cp = first(rt, 2).compile(Engine.cpu());
        assertArrayEquals(base, cp.cacheBlobId(), "the compiled partition gives the same id");
        assertTrue(cp.cacheBlobs().isEmpty(), "a backend without blobs gives none (not even a seal)");
    }

    @Test
    void theSealRefusesEveryDamageAndOpensIntactBlobs() {
        byte[] id = "some id".getBytes(StandardCharsets.UTF_8);
        List<byte[]> blobs = List.of(new byte[] {1, 2, 3}, new byte[0], new byte[] {9});
        List<byte[]> sealed = CacheBlobs.seal(id, blobs);
        assertEquals(4, sealed.size());
        List<byte[]> opened = CacheBlobs.open(id, sealed, "test");
        assertEquals(3, opened.size());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(blobs.get(i), opened.get(i));
        }
        List<List<byte[]>> damaged = List.of(
                List.of(new byte[] {1, 2, 4}, new byte[0], new byte[] {9}, sealed.get(3)),
                List.of(new byte[] {1, 2}, new byte[] {3}, new byte[] {9}, sealed.get(3)), // bytes moved across blobs
                List.of(new byte[0], new byte[] {1, 2, 3}, new byte[] {9}, sealed.get(3)), // reordered
                List.of(new byte[] {1, 2, 3}, new byte[0], sealed.get(3)), // one dropped
                sealed.subList(0, 3), // no seal
                List.of());
        for (List<byte[]> d : damaged) {
            CacheBlobException x = assertThrows(CacheBlobException.class, () -> CacheBlobs.open(id, d, "entry 7"));
            assertEquals(CacheBlobException.Reason.DAMAGED, x.reason());
            assertTrue(x.getMessage().startsWith("entry 7: "), x.getMessage());
        }
        CacheBlobException other = assertThrows(CacheBlobException.class,
                () -> CacheBlobs.open("another id".getBytes(StandardCharsets.UTF_8), sealed, "entry 8"));
        assertEquals(CacheBlobException.Reason.DAMAGED, other.reason(), "sealed under another id");
    }

    @Test
    void aBackendWithoutBlobsRefusesToCompileFromThem() {
        RuntimeCore rt = runtime(variant("1", ""));
        Partition p = first(rt, 2);
        byte[] id = p.cacheBlobId(p.inputs(), p.outputs(), Engine.cpu());
        CacheBlobException x = assertThrows(CacheBlobException.class, () -> p.compileFromBlobs(p.inputs(), p.outputs(),
                Engine.cpu(), id, CacheBlobs.seal(id, List.of(new byte[] {1}))));
        assertEquals(CacheBlobException.Reason.UNSUPPORTED, x.reason(), x.getMessage());
        assertTrue(x.getMessage().contains("does not compile from cache blobs"), x.getMessage());
        CacheBlobException mismatch = assertThrows(CacheBlobException.class,
                () -> p.compileFromBlobs(p.inputs(), p.outputs(), Engine.cpu(), new byte[] {1, 2}, List.of()));
        assertEquals(CacheBlobException.Reason.ID_MISMATCH, mismatch.reason());
    }
}
