package io.partita.backend.acl.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AclSettingsTest {

    @Test
    void wholeMegabytesInRangeAreAccepted() {
        assertEquals(0, AclSettings.poolCapMb("0"));
        assertEquals(256, AclSettings.poolCapMb(" 256 "));
        assertEquals(AclSettings.MAX_POOL_CAP_MB, AclSettings.poolCapMb("" + AclSettings.MAX_POOL_CAP_MB));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-1", "1.5", "lots", "1048577", "99999999999999999999"})
    void anythingElseIsRefusedNamingTheSettingAndTheRange(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AclSettings.poolCapMb(value));
        assertTrue(e.getMessage().contains("pool.cap.mb") && e.getMessage().contains("from 0 to 1048576")
                && e.getMessage().contains("'" + value + "'"), e.getMessage());
    }

    @Test
    void theMemoryManagerIsCachedOrOnDemand() {
        assertTrue(AclSettings.cachedMemory("cached"));
        assertTrue(!AclSettings.cachedMemory(" on-demand"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AclSettings.cachedMemory("pooled"));
        assertTrue(e.getMessage().contains("memory.manager must be 'cached' or 'on-demand', got 'pooled'"), e.getMessage());
    }
}
