/**
 * How components apply a Config Admin configuration: each property coerced by its metatype type,
 * applied only when it changed, restored to its default when removed, refused with a logged message
 * naming PID, key, value and expected form. Used by the runtime, the caches and the backends.
 */
@Export
@Version("1.0.0")
package io.partita.cache.config;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
