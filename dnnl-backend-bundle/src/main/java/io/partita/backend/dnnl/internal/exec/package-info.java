/** The per-engine worker pool the kernels run on. */
package io.partita.backend.dnnl.internal.exec;
