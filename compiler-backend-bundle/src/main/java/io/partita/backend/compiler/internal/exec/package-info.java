/** The fused loops compiled partitions run, and their worker pool. */
package io.partita.backend.compiler.internal.exec;
