package io.partita.cache.internal;

import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.CacheManager;
import io.partita.cache.config.ConfigProperties;

/**
 * Applies Config Admin PID {@code io.partita.cache.persistent} to the cache manager. A malformed
 * property is logged quoting it and the expected form, remembered for management tools (the
 * manager's last refused setting), and the previous setting stays; only changed properties are
 * applied, and a removed one (or the deleted configuration) restores the default. A separate
 * component so that the persistent store has its own PID and metatype form; optional configuration,
 * so that deleting it reaches {@link #configure} instead of deactivating the component.
 */
@Component(configurationPid = PersistentCacheConfiguration.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        immediate = true, service = {})
@Designate(ocd = PersistentCacheConfig.class)
public final class PersistentCacheConfiguration {
    static final String PID = "io.partita.cache.persistent";
    private static final Logger LOG = LoggerFactory.getLogger(PersistentCacheConfiguration.class);

    private final CacheManagerImpl manager;
    private final ConfigProperties config;

    @Activate
    public PersistentCacheConfiguration(
            @Reference(target = "(component.name=io.partita.cache.internal.CacheManagerImpl)") CacheManager manager,
            Map<String, Object> properties) {
        this(manager, System.getenv(), properties);
    }

    PersistentCacheConfiguration(CacheManager manager, Map<String, String> env, Map<String, Object> properties) {
        this.manager = (CacheManagerImpl) manager;
        // A removed property gets the environment's value back, or the built-in default.
        String dir = env.get(CacheManager.PERSISTENT_DIR_ENV);
        String capacity = env.getOrDefault(CacheManager.PERSISTENT_CAPACITY_ENV, "0");
        String engines = env.getOrDefault(CacheManager.PERSISTENT_ENGINES_ENV, "gpu");
        this.config = new ConfigProperties(PID)
                .text("directory", "a directory path only its owner can write",
                        v -> this.manager.applyPersistentCacheDirectory(PID + " directory", v), () -> {
                            if (dir != null && !dir.isBlank()) {
                                this.manager.applyPersistentCacheDirectory(CacheManager.PERSISTENT_DIR_ENV, dir);
                            } else {
                                // There is no "no directory" setting; capacity 0 (its default) keeps the store off.
                                LOG.info("{} directory removed: the store keeps its directory until capacity is set", PID);
                            }
                        })
                .text("capacity", "a non-negative number of megabytes (0 disables the store)",
                        v -> this.manager.applyPersistentCacheCapacity(PID + " capacity", v),
                        () -> this.manager.applyPersistentCacheCapacity(CacheManager.PERSISTENT_CAPACITY_ENV, capacity))
                .text("engines", "engine kinds separated by ';' (cpu, gpu) or none",
                        v -> this.manager.applyPersistentCacheEngines(PID + " engines", v),
                        () -> this.manager.applyPersistentCacheEngines(CacheManager.PERSISTENT_ENGINES_ENV, engines));
        configure(properties);
    }

    @Modified
    void configure(Map<String, Object> properties) {
        config.update(properties).forEach(manager::recordSettingError);
    }
}
