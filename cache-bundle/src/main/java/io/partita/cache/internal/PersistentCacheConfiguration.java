package io.partita.cache.internal;

import java.util.function.BiConsumer;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.CacheManager;
import io.partita.cache.InvalidCacheSettingException;

/**
 * Applies Config Admin PID {@code io.partita.cache.persistent} to the cache manager. A malformed
 * property is logged quoting it and the expected form, remembered for management tools (the
 * manager's last refused setting), and the previous setting stays. A separate component so that the
 * persistent store has its own PID and metatype form.
 */
@Component(configurationPid = PersistentCacheConfiguration.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        immediate = true, service = {})
@Designate(ocd = PersistentCacheConfig.class)
public final class PersistentCacheConfiguration {
    static final String PID = "io.partita.cache.persistent";
    private static final Logger LOG = LoggerFactory.getLogger(PersistentCacheConfiguration.class);

    private final CacheManagerImpl manager;

    @Activate
    public PersistentCacheConfiguration(
            @Reference(target = "(component.name=io.partita.cache.internal.CacheManagerImpl)") CacheManager manager, PersistentCacheConfig config) {
        this.manager = (CacheManagerImpl) manager;
        configure(config);
    }

    @Modified
    void configure(PersistentCacheConfig config) {
        apply("directory", config.directory(), manager::applyPersistentCacheDirectory);
        apply("capacity", config.capacity(), manager::applyPersistentCacheCapacity);
        apply("engines", config.engines(), manager::applyPersistentCacheEngines);
    }

    private void apply(String property, String value, BiConsumer<String, String> setter) {
        if (value == null || value.isBlank()) {
            return;
        }
        try {
            setter.accept(PID + " " + property, value);
            LOG.info("{} {} = {}", PID, property, value);
        } catch (InvalidCacheSettingException e) {
            LOG.error("refused {} {}: {}", PID, property, e.getMessage());
        }
    }
}
