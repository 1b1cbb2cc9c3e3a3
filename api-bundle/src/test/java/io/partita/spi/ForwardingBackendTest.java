package io.partita.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.partita.graph.EngineKind;
import io.partita.graph.PartitionPolicy;

class ForwardingBackendTest {

    /** Records every call and answers with values the defaults of Backend would not give. */
    private static final class Recording implements Backend {
        final List<String> calls = new ArrayList<>();
        final List<Claim> claims = List.of();

        @Override
        public String id() {
            calls.add("id");
            return "rec";
        }

        @Override
        public String version() {
            calls.add("version");
            return "7";
        }

        @Override
        public Set<EngineKind> engineKinds() {
            calls.add("engineKinds");
            return Set.of(EngineKind.GPU);
        }

        @Override
        public String description() {
            calls.add("description");
            return "details";
        }

        @Override
        public int defaultRank() {
            calls.add("defaultRank");
            return 42;
        }

        @Override
        public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
            calls.add("claim " + policy);
            return claims;
        }

        @Override
        public Kernel compile(CompileRequest request) {
            calls.add("compile");
            return null;
        }

        @Override
        public String cacheIdentity(io.partita.graph.Engine engine) {
            calls.add("cacheIdentity");
            return "dev";
        }

        @Override
        public boolean givesCacheBlobs() {
            calls.add("givesCacheBlobs");
            return true;
        }

        @Override
        public Kernel compileFromBlobs(CompileRequest request, List<byte[]> blobs) {
            calls.add("compileFromBlobs " + blobs.size());
            return null;
        }

        @Override
        public void setThreads(int threads) {
            calls.add("setThreads " + threads);
        }

        @Override
        public void close() {
            calls.add("close");
        }
    }

    @Test
    void everyCallReachesTheDelegate() {
        Recording r = new Recording();
        Backend f = new ForwardingBackend(r) {
        };
        assertEquals("rec", f.id());
        assertEquals("7", f.version());
        assertEquals(Set.of(EngineKind.GPU), f.engineKinds());
        assertEquals("details", f.description());
        assertEquals(42, f.defaultRank());
        assertSame(r.claims, f.claim(null, PartitionPolicy.DEBUG));
        f.compile(null);
        assertEquals("dev", f.cacheIdentity(null));
        assertEquals(true, f.givesCacheBlobs());
        f.compileFromBlobs(null, List.of(new byte[1]));
        f.setThreads(3);
        f.close();
        assertEquals(List.of("id", "version", "engineKinds", "description", "defaultRank", "claim DEBUG", "compile",
                "cacheIdentity", "givesCacheBlobs", "compileFromBlobs 1", "setThreads 3", "close"), r.calls);
    }
}
