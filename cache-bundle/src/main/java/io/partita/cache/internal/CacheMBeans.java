package io.partita.cache.internal;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.CacheManager;
import io.partita.cache.CachePolicy;
import io.partita.cache.CacheStats;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.InvalidCacheSettingException;
import io.partita.cache.KernelCacheStats;

/**
 * Registers an MBean per constant tensor cache and per kernel cache in the platform MBean server
 * (domain {@code io.partita}), as each cache comes into being, and unregisters them when the cache
 * bundle stops. Setters go through the manager, so they follow the same rules as the Java API
 * (a refused value throws with the manager's message and the previous setting stays).
 */
@Component(immediate = true, service = {})
public final class CacheMBeans {
    private static final Logger LOG = LoggerFactory.getLogger(CacheMBeans.class);
    static final String DOMAIN = "io.partita";

    private final CacheManagerImpl manager;
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final Set<ObjectName> registered = ConcurrentHashMap.newKeySet();

    @Activate
    public CacheMBeans(
            @Reference(target = "(component.name=io.partita.cache.internal.CacheManagerImpl)") CacheManager manager) {
        this.manager = (CacheManagerImpl) manager;
        this.manager.onNewCache(this::registerConstant, this::registerKernel);
    }

    @Deactivate
    void deactivate() {
        manager.onNewCache(null, null);
        for (ObjectName n : registered) {
            try {
                server.unregisterMBean(n);
            } catch (JMException e) {
                LOG.debug("{} already unregistered", n);
            }
        }
        registered.clear();
    }

    private void register(Object bean, String name) {
        try {
            ObjectName n = new ObjectName(name);
            try {
                server.registerMBean(bean, n);
            } catch (InstanceAlreadyExistsException e) {
                // left by an earlier revision of this bundle that did not stop cleanly: replace it
                server.unregisterMBean(n);
                server.registerMBean(bean, n);
            }
            registered.add(n);
        } catch (JMException e) {
            LOG.warn("cannot register MBean {}: {}", name, e.toString());
        }
    }

    private void registerConstant(ConstantTensorCache cache) {
        register(new ConstantView(cache), DOMAIN + ":type=ConstantTensorCache,device=" + cache.device());
    }

    private void registerKernel(String name) {
        register(new KernelView(name), DOMAIN + ":type=KernelCache,name=" + ObjectName.quote(name));
    }

    private final class ConstantView implements ConstantTensorCacheMXBean {
        private final ConstantTensorCache cache;

        ConstantView(ConstantTensorCache cache) {
            this.cache = cache;
        }

        private CacheStats stats() {
            return cache.stats();
        }

        @Override
        public String getDevice() {
            return cache.device().toString();
        }

        @Override
        public String getPolicy() {
            return cache.policy().name().toLowerCase(Locale.ROOT);
        }

        @Override
        public void setPolicy(String policy) {
            CachePolicy p;
            try {
                p = CachePolicy.valueOf(policy.strip().toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("constant tensor cache policy '" + policy
                        + "' is not a policy; expected no_evict, lru or cost");
            }
            manager.setConstantTensorCachePolicy(cache.device(), p);
        }

        @Override
        public long getCapacityMegabytes() {
            long c = cache.capacity();
            return c == ConstantTensorCache.UNLIMITED ? -1 : c >> 20;
        }

        @Override
        public void setCapacityMegabytes(long megabytes) {
            if (megabytes < -1) {
                throw new InvalidCacheSettingException("constant tensor cache capacity " + megabytes
                        + " MB: expected megabytes >= 0, or -1 for unlimited");
            }
            manager.setConstantTensorCacheCapacity(cache.device(),
                    megabytes == -1 ? ConstantTensorCache.UNLIMITED : megabytes);
        }

        @Override
        public long getSizeBytes() {
            return stats().sizeBytes();
        }

        @Override
        public long getEntries() {
            return stats().entries();
        }

        @Override
        public long getHits() {
            return stats().hits();
        }

        @Override
        public long getMisses() {
            return stats().misses();
        }

        @Override
        public long getUncachedMisses() {
            return stats().uncachedMisses();
        }

        @Override
        public long getEvictions() {
            return stats().evictions();
        }

        @Override
        public double getHitRate() {
            CacheStats s = stats();
            long lookups = s.hits() + s.misses();
            return lookups == 0 ? 0 : (double) s.hits() / lookups;
        }
    }

    private final class KernelView implements KernelCacheMXBean {
        private final String name;

        KernelView(String name) {
            this.name = name;
        }

        private KernelCacheStats stats() {
            return manager.kernelCache(name).stats();
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public int getCapacity() {
            return stats().capacity();
        }

        @Override
        public void setCapacity(int entries) {
            manager.setKernelCacheCapacity(name, entries);
        }

        @Override
        public int getEntries() {
            return stats().entries();
        }

        @Override
        public long getHits() {
            return stats().hits();
        }

        @Override
        public long getMisses() {
            return stats().misses();
        }

        @Override
        public long getEvictions() {
            return stats().evictions();
        }
    }
}
