package io.partita.backend.acl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.cache.CacheManager;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.runtime.StandaloneRuntime;
import io.partita.testkit.check.RandomInputs;

/** Constant weights are reshaped once into the unified constant cache under backend id acl; other weights never are. */
class PackedConstantsTest {

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void constantWeightsArePackedOnceUnderTheAclId(boolean constant) {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        AclBackend acl = new AclBackend(caches);
        GraphRuntime rt = StandaloneRuntime.of(caches, acl);
        Graph g = rt.createGraph(EngineKind.CPU);
        LogicalTensor w = LogicalTensor.of(1, DataType.F32, 13, 7);
        g.add(Op.builder(0, OpKind.MatMul).inputs(LogicalTensor.of(0, DataType.F32, 5, 13),
                constant ? w.withProperty(PropertyType.CONSTANT) : w).output(LogicalTensor.of(2, DataType.F32, 5, 7)).build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        ConstantTensorCache cpu = caches.constantTensorCache(Device.of("cpu", 0));
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt.opSchemas(), g, e, arena, 3);
            for (int i = 0; i < 3; i++) {
                cg.execute(new Stream(e), in);
            }
            assertEquals(constant ? 1 : 0, cpu.stats().misses());
            assertEquals(constant ? 2 : 0, cpu.stats().hits());
            assertEquals(constant ? 1 : 0, cpu.removeBackend(AclBackend.ID));
        }
        acl.close();
    }
}
