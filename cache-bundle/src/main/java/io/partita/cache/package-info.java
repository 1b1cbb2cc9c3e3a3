/**
 * The unified caches shared by all backends: the constant tensor cache (one per engine kind and
 * device; processed constant tensors keyed by backend id and backend key; capacity, policies,
 * leases, eviction callbacks), the LRU kernel caches (primitives, compiled partitions) and the
 * persistent on-disk kernel store.
 * Reach them through {@link io.partita.cache.CacheManager}: the OSGi service, or on a plain class
 * path the instance a runtime creates with {@link java.util.ServiceLoader} and hands to its backends.
 */
@Export
@Version("0.8.0")
package io.partita.cache;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
