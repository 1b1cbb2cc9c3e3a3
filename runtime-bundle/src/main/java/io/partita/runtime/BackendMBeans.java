package io.partita.runtime;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime component's MBeans, one per backend it offers graphs to, in the platform MBean
 * server under {@code io.partita:type=Backend,id=ID}. A backend replaced by a new one of the same id
 * (a bundle update) hands the name over; the name goes when the backend does.
 */
final class BackendMBeans {
    private static final Logger LOG = LoggerFactory.getLogger(BackendMBeans.class);

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final Map<String, BackendHandle> current = new ConcurrentHashMap<>();
    private final java.util.function.Function<BackendHandle, List<String>> cachedPartitions;

    BackendMBeans(java.util.function.Function<BackendHandle, List<String>> cachedPartitions) {
        this.cachedPartitions = cachedPartitions;
    }

    static ObjectName name(String id) throws JMException {
        return new ObjectName("io.partita:type=Backend,id=" + ObjectName.quote(id));
    }

    synchronized void register(BackendHandle h) {
        try {
            ObjectName n = name(h.id());
            View v = new View(h, cachedPartitions);
            try {
                server.registerMBean(v, n);
            } catch (InstanceAlreadyExistsException e) {
                server.unregisterMBean(n);
                server.registerMBean(v, n);
            }
            current.put(h.id(), h);
        } catch (JMException e) {
            LOG.warn("cannot register the MBean of backend {}: {}", h.id(), e.toString());
        }
    }

    synchronized void unregister(BackendHandle h) {
        if (current.get(h.id()) != h) {
            return; // replaced meanwhile by a backend of the same id
        }
        current.remove(h.id());
        try {
            server.unregisterMBean(name(h.id()));
        } catch (JMException e) {
            LOG.debug("MBean of backend {} already gone", h.id());
        }
    }

    synchronized void unregisterAll() {
        for (BackendHandle h : List.copyOf(current.values())) {
            unregister(h);
        }
    }

    private record View(BackendHandle h, java.util.function.Function<BackendHandle, List<String>> cached)
            implements BackendMXBean {
        @Override
        public List<String> getCachedPartitions() {
            return cached.apply(h);
        }

        @Override
        public String getId() {
            return h.id();
        }

        @Override
        public String getVersion() {
            return h.backend().version();
        }

        @Override
        public int getRank() {
            return h.rank();
        }

        @Override
        public String getState() {
            return h.info().state().name().toLowerCase(Locale.ROOT);
        }

        @Override
        public List<String> getEngineKinds() {
            return h.backend().engineKinds().stream().map(k -> k.name().toLowerCase(Locale.ROOT)).sorted().toList();
        }

        @Override
        public String getDescription() {
            return h.backend().description();
        }

        @Override
        public List<String> getClaimedOpKinds() {
            return h.claimedOpKinds().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
        }

        @Override
        public long getCompiledPartitions() {
            return h.compilations();
        }

        @Override
        public long getExecutions() {
            return h.executions();
        }

        @Override
        public int getRunning() {
            return h.running();
        }
    }
}
