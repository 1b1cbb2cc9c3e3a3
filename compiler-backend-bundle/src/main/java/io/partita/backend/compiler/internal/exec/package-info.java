/** The fused loops compiled partitions run, and how they run on the runtime's thread team. */
package io.partita.backend.compiler.internal.exec;
